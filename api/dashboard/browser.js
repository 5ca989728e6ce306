// The invoice browser's shared script (inlined by api/routes/invoice-browser.ts before each page's
// own script). The same key model as the usage dashboard: the person pastes an API key; it lives in
// this tab's sessionStorage (the dashboard's entry, so one key serves both), is sent only in the
// Authorization header, never in a URL or lasting storage. Exposes window.Browser.
(() => {
  'use strict';
  const STORE = 'factura.dashboard.key';
  const $ = (id) => document.getElementById(id);
  let apiKey = sessionStorage.getItem(STORE) || '';

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === false || v === null || v === undefined) continue;
      e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  class ApiProblem extends Error {
    constructor(status, body) {
      super((body && (body.detail || body.title)) || 'HTTP ' + status);
      this.status = status;
      this.code = body && body.code;
      this.body = body;
    }
  }

  // The key shares its company's rate limit with the company's other systems: a 429 is waited
  // out (Retry-After, at most three times) instead of shown as a failure.
  async function request(method, path, { body, raw } = {}) {
    let res;
    for (let attempt = 0; ; attempt++) {
      const headers = { authorization: 'Bearer ' + apiKey, accept: raw ? '*/*' : 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
      if (res.status !== 429 || attempt === 3) break;
      const wait = Math.min(10, Number(res.headers.get('retry-after')) || 1);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
    if (raw && res.ok) return res;
    const parsed = await res.json().catch(() => null);
    if (!res.ok) throw new ApiProblem(res.status, parsed);
    return parsed;
  }

  const get = (path) => request('GET', path);
  const post = (path, body) => request('POST', path, { body });

  /** Fetches a file with the key and hands it to the browser as a download. */
  async function download(path, fallbackName) {
    const res = await request('GET', path, { raw: true });
    const disposition = res.headers.get('content-disposition') || '';
    const named = /filename="([^"]+)"/.exec(disposition);
    const url = URL.createObjectURL(await res.blob());
    const a = el('a', { href: url, download: named ? named[1] : fallbackName, class: 'hidden' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return res.headers.get('content-type');
  }

  function qs(params) {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, v);
    const s = u.toString();
    return s ? '?' + s : '';
  }

  const STATUS = {
    borrador: 'Draft',
    pendiente: 'Pending',
    enviada: 'Sent to Hacienda',
    aceptada: 'Accepted',
    rechazada: 'Rejected',
  };
  const DOC_TYPES = {
    '01': 'Factura',
    '02': 'Nota de débito',
    '03': 'Nota de crédito',
    '04': 'Tiquete',
    '08': 'Factura de compra',
    '09': 'Factura de exportación',
    10: 'Recibo de pago',
  };
  // A credit note is owed by nobody: it has no payment status of its own.
  const PAYMENT = {
    unpaid: 'Unpaid',
    partial: 'Partly paid',
    paid: 'Paid',
    not_applicable: 'No aplica (not applicable)',
  };
  // A tiquete may be sold to no one.
  const NO_CLIENT = 'Sin cliente (no client)';

  // Display only (the API's strings are the figures): 2 decimals, or up to 5 for unit prices.
  function money(amount, currency, maxDecimals = 2) {
    const n = Number(amount);
    try {
      return new Intl.NumberFormat('en-US', {
        style: 'currency',
        currency,
        minimumFractionDigits: 2,
        maximumFractionDigits: maxDecimals,
      }).format(n);
    } catch {
      return amount + ' ' + currency;
    }
  }
  const dateTime = (iso) =>
    iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—';
  const date = (iso) => (iso ? new Date(iso).toLocaleDateString('en-GB', { dateStyle: 'medium' }) : '—');

  function badge(kind, text) {
    return el('span', { class: 'badge ' + kind }, text);
  }

  function showError(message) {
    $('error').textContent = message;
    $('error').classList.toggle('hidden', !message);
  }

  /** The key form: connect (stores the key, calls onKey), forget (clears it). */
  function setupKey(onKey) {
    $('key-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const value = $('key').value.trim();
      if (!value) return showError('Paste an API key first.');
      apiKey = value;
      sessionStorage.setItem(STORE, apiKey);
      $('key').value = '';
      onKey();
    });
    $('forget').addEventListener('click', () => {
      sessionStorage.removeItem(STORE);
      apiKey = '';
      location.reload();
    });
    if (apiKey) onKey();
  }

  /**
   * After a successful call: shows the mode, hides the key form behind "Forget key". When the
   * key was just submitted, the focus moves on to `focusNext` (the button it was on is gone).
   */
  function connected(focusNext) {
    const fromForm =
      $('key-form').contains(document.activeElement) && $('forget').classList.contains('hidden');
    $('mode').textContent = apiKey.startsWith('ik_live_') ? 'live' : 'sandbox';
    $('mode').classList.remove('hidden');
    $('key-fields').classList.add('hidden');
    $('connect-btn').classList.add('hidden');
    $('forget').classList.remove('hidden');
    showError('');
    if (fromForm && focusNext) $(focusNext).focus();
  }

  function failed(err, scope) {
    if (err && err.status === 401) return showError('This key was not accepted: paste a valid key.');
    if (err && err.status === 403)
      return showError('This key lacks a scope this page needs (' + scope + '): ' + err.message);
    showError(err ? err.message : 'Something went wrong');
  }

  /**
   * Names of clients by id, looked up once per page (needs read:clients; ids shown otherwise). A
   * document without a client (a tiquete sold to no one) asks nothing.
   */
  const clientNames = new Map();
  async function clientName(id) {
    if (!id) return null;
    if (!clientNames.has(id))
      clientNames.set(
        id,
        get('/api/v1/clients/' + encodeURIComponent(id))
          .then((c) => c.name)
          .catch(() => null),
      );
    return clientNames.get(id);
  }

  window.Browser = {
    $,
    el,
    get,
    post,
    download,
    qs,
    STATUS,
    DOC_TYPES,
    PAYMENT,
    NO_CLIENT,
    money,
    dateTime,
    date,
    badge,
    showError,
    setupKey,
    connected,
    failed,
    clientName,
    hasKey: () => Boolean(apiKey),
  };
})();
