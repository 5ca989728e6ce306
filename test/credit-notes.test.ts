// Credit and debit notes end to end: API → the invoice flow (sign, submit, accounting, status)
// against the Hacienda simulator; each note's XML checked against its own XSD; the credits of a
// document capped at its total, concurrent requests included; journal entries and events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { validateXml } from './helpers/xsd.ts';
import {
  api,
  seedIssuer,
  startE2E,
  type E2E,
  waitForDocumentStatus,
  storedSignedXml,
} from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
const srv = (id: number) => `srv_${String(id).padStart(12, '0')}`;
const num = (id: string) => Number(id.slice(4));

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
});
afterAll(async () => {
  await e.close();
});

const waitForStatus = (id: string, statuses: string[], timeoutMs = 30_000) =>
  waitForDocumentStatus(e, s.key, id, statuses, timeoutMs);

/**
 * An accepted invoice: two laptops (450000 + 13 % IVA each) and one exempt service (10000), left
 * unpaid at issue so its balance shows what the notes change.
 */
async function acceptedInvoice() {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: `cli_${String(s.client.id).padStart(12, '0')}`,
    paid_at_issue: false,
    lines: [
      { service_id: srv(s.laptop.id), qty: 2 },
      { service_id: srv(s.exempt.id), qty: 1 },
    ],
  });
  expect(res.status).toBe(201);
  expect(res.json.total).toBe('1027000.00');
  return waitForStatus(res.json.id, ['aceptada']);
}

async function entries(invoiceId: number) {
  return e
    .db('journal_entries as e')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('accounts as a', 'a.id', 'l.account_id')
    .where('e.invoice_id', invoiceId)
    .select('e.kind', 'e.description', 'a.role', 'l.debit', 'l.credit');
}

async function written() {
  const [inv, series, events] = await Promise.all([
    e.db('invoices').count('* as n').first(),
    e.db('numbering_series').sum('last_number as n').first(),
    e.db('events').count('* as n').first(),
  ]);
  return [Number(inv!.n), Number(series!.n), Number(events!.n)];
}

const signedXml = (id: string) => storedSignedXml(e.db, id);

describe('credit notes', () => {
  let a: any;
  let partial: any;

  it('refuses every invalid request with problem+json and writes nothing', async () => {
    a = await acceptedInvoice();
    const pending = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${String(s.client.id).padStart(12, '0')}`,
      lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
      send: false,
    });
    expect(pending.json.status).toBe('borrador');
    const before = await written();
    const cases: [string, unknown, number, string, string?][] = [
      [a.id, {}, 422, 'validation_failed'],
      [a.id, { reason: 'no' }, 422, 'validation_failed', '/reason'],
      [a.id, { reason: 'Devolución', lines: [{ line: 3 }] }, 422, 'validation_failed', '/lines/0/line'],
      [
        a.id,
        { reason: 'Devolución', lines: [{ line: 1 }, { line: 1 }] },
        422,
        'validation_failed',
        '/lines/1/line',
      ],
      [
        a.id,
        { reason: 'Devolución', lines: [{ line: 1, qty: 3 }] },
        422,
        'validation_failed',
        '/lines/0/qty',
      ],
      [
        a.id,
        { reason: 'Rebaja', lines: [{ line: 2, amount: '10000.01' }] },
        422,
        'validation_failed',
        '/lines/0/amount',
      ],
      [
        a.id,
        { reason: 'Rebaja', lines: [{ line: 2, amount: '1', qty: 1 }] },
        422,
        'validation_failed',
        '/lines/0',
      ],
      [a.id, { reason: 'Anula una', code: '01', lines: [{ line: 1 }] }, 422, 'validation_failed', '/code'],
      [a.id, { reason: 'Código malo', code: '16' }, 422, 'validation_failed', '/code'],
      [a.id, { reason: 'Campo extra', extra: 1 }, 422, 'validation_failed'],
      ['inv_999999999999', { reason: 'No existe' }, 404, 'resource_not_found'],
      [pending.json.id, { reason: 'Un borrador' }, 409, 'reference_not_accepted'],
    ];
    for (const [id, body, status, code, path] of cases) {
      const res = await api(e, 'POST', `/api/v1/invoices/${id}/credit_notes`, s.key, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.json.code).toBe(code);
      if (path) expect(res.json.errors.map((x: any) => x.path)).toContain(path);
    }
    expect(await written()).toEqual(before);
  });

  it('a partial credit note references the invoice, validates against its XSD, is accepted and reverses what it credits', async () => {
    const res = await api(
      e,
      'POST',
      `/api/v1/invoices/${a.id}/credit_notes`,
      s.key,
      { reason: 'Devolución de una computadora', code: '06', lines: [{ line: 1, qty: 1 }] },
      { 'idempotency-key': 'nc-partial-1' },
    );
    expect(res.status).toBe(201);
    partial = res.json;
    expect(partial).toMatchObject({
      document_type: '03',
      status: 'pendiente',
      total: '508500.00',
      balance_due: '0.00',
      reference: { document_id: a.id, document_type: '01', clave: a.clave, code: '06' },
    });
    // Its own series: tipo 03 in positions 9-10, number 1.
    expect(partial.consecutivo).toBe('00100001030000000001');
    expect(partial.clave.slice(21, 41)).toBe(partial.consecutivo);

    // The same request under the same key answers the same note, and records nothing more.
    const again = await api(
      e,
      'POST',
      `/api/v1/invoices/${a.id}/credit_notes`,
      s.key,
      { reason: 'Devolución de una computadora', code: '06', lines: [{ line: 1, qty: 1 }] },
      { 'idempotency-key': 'nc-partial-1' },
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(partial.id);

    const ref = (await api(e, 'GET', `/api/v1/invoices/${a.id}`, s.key)).json;
    expect(ref).toMatchObject({ credited_total: '508500.00', balance_due: '518500.00', annulled: false });

    const done = await waitForStatus(partial.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');
    const xml = await signedXml(partial.id);
    expect(xml).toContain('<NotaCreditoElectronica');
    expect(xml).toMatch(
      new RegExp(
        `<InformacionReferencia>\\s*<TipoDocIR>01</TipoDocIR>\\s*<Numero>${a.clave}</Numero>\\s*` +
          '<FechaEmisionIR>[^<]+</FechaEmisionIR>\\s*<Codigo>06</Codigo>\\s*' +
          '<Razon>Devolución de una computadora</Razon>\\s*</InformacionReferencia>',
      ),
    );
    expect((await validateXml('NotaCreditoElectronica', xml)).valid).toBe(true);

    // Its entry reverses the line it credits: revenue and IVA debited, receivables credited.
    await waitFor(async () => (await entries(num(partial.id))).length > 0, 10_000, 100, 'the note booked');
    const lines = await entries(num(partial.id));
    expect(new Set(lines.map((l) => l.kind))).toEqual(new Set(['invoice']));
    const byRole = Object.fromEntries(
      lines.map((l) => [l.role, [new Decimal(l.debit).toFixed(2), new Decimal(l.credit).toFixed(2)]]),
    );
    expect(byRole).toEqual({
      receivables: ['0.00', '508500.00'],
      revenue_goods: ['450000.00', '0.00'],
      iva_payable: ['58500.00', '0.00'],
    });
    expect(new Set(lines.map((l) => l.description))).toEqual(
      new Set([`Nota de crédito electrónica ${partial.consecutivo}`]),
    );

    const created = await e.db('events').where({ type: 'credit_note.created' });
    expect(created.map((x) => x.data.id)).toEqual([partial.id]);
  });

  it('two concurrent credits that together exceed what is left: one is recorded, the other refused', async () => {
    const body = { reason: 'Devolución de otra computadora', lines: [{ line: 1, qty: 1 }] };
    const before = await written();
    const [r1, r2] = await Promise.all([
      api(e, 'POST', `/api/v1/invoices/${a.id}/credit_notes`, s.key, body),
      api(e, 'POST', `/api/v1/invoices/${a.id}/credit_notes`, s.key, body),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([201, 422]);
    const refused = r1.status === 422 ? r1 : r2;
    expect(refused.json.code).toBe('credit_exceeds_total');
    const after = await written();
    expect(after[0]).toBe(before[0]! + 1);
    expect(after[1]).toBe(before[1]! + 1);
    const ref = (await api(e, 'GET', `/api/v1/invoices/${a.id}`, s.key)).json;
    expect(ref.credited_total).toBe('1017000.00');
    expect(ref.annulled).toBe(false);
  });

  it('the credits reach the total: the invoice is annulled, once', async () => {
    // A whole-document credit note no longer fits.
    const whole = await api(e, 'POST', `/api/v1/invoices/${a.id}/credit_notes`, s.key, {
      reason: 'Anulación',
    });
    expect(whole.status).toBe(422);
    expect(whole.json.code).toBe('credit_exceeds_total');
    // The exempt line by amount is exactly what is left.
    const last = await api(e, 'POST', `/api/v1/invoices/${a.id}/credit_notes`, s.key, {
      reason: 'Rebaja del servicio',
      lines: [{ line: 2, amount: '10000' }],
    });
    expect(last.status).toBe(201);
    expect(last.json.consecutivo).toBe('00100001030000000003');
    const ref = (await api(e, 'GET', `/api/v1/invoices/${a.id}`, s.key)).json;
    expect(ref).toMatchObject({ credited_total: '1027000.00', balance_due: '0.00', annulled: true });
    const more = await api(e, 'POST', `/api/v1/invoices/${a.id}/credit_notes`, s.key, {
      reason: 'Una más',
      lines: [{ line: 2, amount: '1' }],
    });
    expect(more.status).toBe(422);
    expect(more.json.code).toBe('credit_exceeds_total');
    const annulled = await e.db('events').where({ type: 'invoice.annulled' });
    expect(annulled.map((x) => x.data.id)).toEqual([a.id]);
    expect(annulled[0].data.annulled).toBe(true);
    await waitForStatus(last.json.id, ['aceptada']);
  });

  it('a whole credit note annuls the invoice with code 01', async () => {
    const b = await acceptedInvoice();
    const res = await api(e, 'POST', `/api/v1/invoices/${b.id}/credit_notes`, s.key, {
      reason: 'Anulación total',
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ total: '1027000.00', reference: { code: '01', document_id: b.id } });
    expect(res.json.lines).toHaveLength(2);
    const ref = (await api(e, 'GET', `/api/v1/invoices/${b.id}`, s.key)).json;
    expect(ref).toMatchObject({ annulled: true, credited_total: '1027000.00', balance_due: '0.00' });
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');
    // Each note booked exactly once; a credit note cannot be the referenced document.
    const onNote = await api(e, 'POST', `/api/v1/invoices/${res.json.id}/credit_notes`, s.key, {
      reason: 'Sobre la nota',
    });
    expect(onNote.status).toBe(422);
    expect(onNote.json.code).toBe('document_not_creditable');
  });
});

describe('debit notes', () => {
  it('adds to an accepted invoice in its own series; its XML validates and its entry adds to the receivable', async () => {
    const c = await acceptedInvoice();
    const res = await api(e, 'POST', `/api/v1/invoices/${c.id}/debit_notes`, s.key, {
      reason: 'Cargo por flete no facturado',
      lines: [{ line: 1, amount: '1000' }],
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      document_type: '02',
      total: '1130.00',
      balance_due: '1130.00',
      reference: { document_id: c.id, code: '02' },
    });
    expect(res.json.consecutivo).toBe('00100001020000000001');
    const bad = await api(e, 'POST', `/api/v1/invoices/${c.id}/debit_notes`, s.key, {
      reason: 'Anula',
      code: '01',
    });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].path).toBe('/code');
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toContain('<NotaDebitoElectronica');
    expect(xml).toContain('<Codigo>02</Codigo>');
    expect((await validateXml('NotaDebitoElectronica', xml)).valid).toBe(true);
    await waitFor(async () => (await entries(num(res.json.id))).length > 0, 10_000, 100, 'the note booked');
    const lines = await entries(num(res.json.id));
    const receivable = lines.find((l) => l.role === 'receivables')!;
    expect(new Decimal(receivable.debit).toFixed(2)).toBe('1130.00');
    expect(receivable.description).toBe(`Nota de débito electrónica ${res.json.consecutivo}`);
    expect((await e.db('events').where({ type: 'debit_note.created' })).map((x) => x.data.id)).toEqual([
      res.json.id,
    ]);
    // The invoice's credits are untouched by a debit note.
    const ref = (await api(e, 'GET', `/api/v1/invoices/${c.id}`, s.key)).json;
    expect(ref).toMatchObject({ credited_total: '0.00', annulled: false });
  });

  it("the client's balance is the sum of every booked entry's receivable, notes included", async () => {
    await waitFor(
      async () => {
        const open = await e
          .db('invoices')
          .whereNull('accounted_at')
          .whereIn('status', ['enviada', 'aceptada']);
        return open.length === 0;
      },
      20_000,
      100,
      'every document booked',
    );
    const rows = await e
      .db('journal_lines as l')
      .join('accounts as a', 'a.id', 'l.account_id')
      .join('journal_entries as e', 'e.id', 'l.entry_id')
      .join('invoices as i', 'i.id', 'e.invoice_id')
      .where({ 'a.role': 'receivables', 'i.client_id': s.client.id })
      .select('l.debit', 'l.credit');
    const expected = rows.reduce((t, r) => t.plus(r.debit).minus(r.credit), new Decimal(0));
    const client = await e.db('clients').where({ id: s.client.id }).first();
    expect(new Decimal(client.balance).toFixed(2)).toBe(expected.toFixed(2));
  });

  it('lists documents by type', async () => {
    const notes = await api(e, 'GET', '/api/v1/invoices?document_type=03&limit=100', s.key);
    expect(notes.status).toBe(200);
    expect(notes.json.data.length).toBe(4);
    expect(notes.json.data.every((d: any) => d.document_type === '03')).toBe(true);
    const debit = await api(e, 'GET', '/api/v1/invoices?document_type=02', s.key);
    expect(debit.json.data.map((d: any) => d.document_type)).toEqual(['02']);
    const bad = await api(e, 'GET', '/api/v1/invoices?document_type=07', s.key);
    expect(bad.status).toBe(422);
  });
});

describe('a rejected document', () => {
  const cli = () => `cli_${String(s.client.id).padStart(12, '0')}`;
  const rejectedInvoice = async () => {
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cli(),
      lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
    });
    expect(res.status).toBe(201);
    return waitForStatus(res.json.id, ['rechazada']);
  };

  it('a rejected credit note gives its credit back', async () => {
    const d = await acceptedInvoice();
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    try {
      const note = await api(e, 'POST', `/api/v1/invoices/${d.id}/credit_notes`, s.key, {
        reason: 'Anulación',
      });
      expect(note.status).toBe(201);
      expect((await api(e, 'GET', `/api/v1/invoices/${d.id}`, s.key)).json.annulled).toBe(true);
      await waitForStatus(note.json.id, ['rechazada']);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    const ref = (await api(e, 'GET', `/api/v1/invoices/${d.id}`, s.key)).json;
    expect(ref).toMatchObject({ credited_total: '0.00', annulled: false, balance_due: '1027000.00' });
  });

  it('is replaced, once, by a new invoice that references it with TipoDocIR 10 and Codigo 16', async () => {
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    let r: any;
    let r2: any;
    try {
      r = await rejectedInvoice();
      r2 = await rejectedInvoice();
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
    const accepted = await acceptedInvoice();
    const body = (replaces: string) => ({
      client_id: cli(),
      lines: [{ service_id: srv(s.exempt.id), qty: 1 }],
      replaces,
    });
    const before = await written();
    const refusals: [string, number, string][] = [
      [accepted.id, 409, 'invoice_not_replaceable'],
      ['inv_999999999999', 404, 'resource_not_found'],
      ['factura-1', 422, 'validation_failed'],
    ];
    for (const [id, status, code] of refusals) {
      const res = await api(e, 'POST', '/api/v1/invoices', s.key, body(id));
      expect(res.status, id).toBe(status);
      expect(res.json.code).toBe(code);
      expect(res.json.errors[0].path).toBe('/replaces');
    }
    expect(await written()).toEqual(before);

    const res = await api(e, 'POST', '/api/v1/invoices', s.key, body(r.id));
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      document_type: '01',
      replaces: r.id,
      reference: { document_id: r.id, document_type: '10', code: '16', clave: r.clave },
    });
    const old = (await api(e, 'GET', `/api/v1/invoices/${r.id}`, s.key)).json;
    expect(old.replaced_by).toBe(res.json.id);
    const again = await api(e, 'POST', '/api/v1/invoices', s.key, body(r.id));
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('invoice_not_replaceable');

    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toMatch(
      new RegExp(`<TipoDocIR>10</TipoDocIR>\\s*<Numero>${r.clave}</Numero>[\\s\\S]*<Codigo>16</Codigo>`),
    );
    expect((await validateXml('FacturaElectronica', xml)).valid).toBe(true);

    // Two requests replacing one invoice at once: one replacement.
    const both = await Promise.all([
      api(e, 'POST', '/api/v1/invoices', s.key, body(r2.id)),
      api(e, 'POST', '/api/v1/invoices', s.key, body(r2.id)),
    ]);
    expect(both.map((x) => x.status).sort()).toEqual([201, 409]);
    const winner = both.find((x) => x.status === 201)!.json.id;
    expect((await api(e, 'GET', `/api/v1/invoices/${r2.id}`, s.key)).json.replaced_by).toBe(winner);
    const refs = await e
      .db('invoices')
      .where({ referencedInvoiceId: num(r2.id) })
      .count('* as n')
      .first();
    expect(Number(refs!.n)).toBe(1);
  });
});

describe('partial notes of an invoice with other charges', () => {
  let inv: any;
  const roles = (lines: { role: string; debit: string; credit: string }[]) =>
    Object.fromEntries(
      lines.map((l) => [l.role, [new Decimal(l.debit).toFixed(2), new Decimal(l.credit).toFixed(2)]]),
    );

  beforeAll(async () => {
    // Two laptops and the exempt service: net 910,000, IVA 117,000; the 10 % service charge
    // (proportional, 91,000) and a Cruz Roja stamp of 500 (fixed); both collected for others.
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${String(s.client.id).padStart(12, '0')}`,
      paid_at_issue: false,
      lines: [
        { service_id: srv(s.laptop.id), qty: 2 },
        { service_id: srv(s.exempt.id), qty: 1 },
      ],
      other_charges: [{ code: '06' }, { code: '02', amount: '500' }],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.total).toBe('1118500.00');
    inv = await waitForStatus(res.json.id, ['aceptada']);
  });

  it('the proportional service charge follows the lines credited; a fixed charge stays unless named', async () => {
    const res = await api(e, 'POST', `/api/v1/invoices/${inv.id}/credit_notes`, s.key, {
      reason: 'Devolución de una computadora',
      code: '06',
      lines: [{ line: 1, qty: 1 }],
    });
    expect(res.status, res.text).toBe(201);
    // 450,000 + 58,500 IVA + 10 % of 450,000.
    expect(res.json.total).toBe('553500.00');
    expect(res.json.other_charges).toEqual([
      expect.objectContaining({ code: '06', percent: '10.00000', amount: '45000.00000' }),
    ]);
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toMatch(
      /<OtrosCargos>\s*<TipoDocumentoOC>06<\/TipoDocumentoOC>[\s\S]*?<MontoCargo>45000\.00000<\/MontoCargo>\s*<\/OtrosCargos>/,
    );
    expect(xml).not.toContain('<TipoDocumentoOC>02</TipoDocumentoOC>');
    expect(xml).toContain('<TotalOtrosCargos>45000.00000</TotalOtrosCargos>');
    expect((await validateXml('NotaCreditoElectronica', xml)).valid).toBe(true);
    await waitFor(async () => (await entries(num(res.json.id))).length > 0, 10_000, 100, 'the note booked');
    expect(roles(await entries(num(res.json.id)))).toEqual({
      receivables: ['0.00', '553500.00'],
      revenue_goods: ['450000.00', '0.00'],
      iva_payable: ['58500.00', '0.00'],
      third_party_payable: ['45000.00', '0.00'],
    });
  });

  it('a fixed charge named in other_charges is credited, once', async () => {
    const res = await api(e, 'POST', `/api/v1/invoices/${inv.id}/credit_notes`, s.key, {
      reason: 'Devolución del servicio y su timbre',
      code: '06',
      lines: [{ line: 2 }],
      other_charges: [{ charge: 2 }],
    });
    expect(res.status, res.text).toBe(201);
    // 10,000 exempt + 10 % of it + the 500 stamp.
    expect(res.json.total).toBe('11500.00');
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
    const xml = await signedXml(res.json.id);
    expect(xml).toMatch(/<TipoDocumentoOC>02<\/TipoDocumentoOC>[\s\S]*?<MontoCargo>500\.00000<\/MontoCargo>/);
    expect((await validateXml('NotaCreditoElectronica', xml)).valid).toBe(true);
    await waitFor(async () => (await entries(num(res.json.id))).length > 0, 10_000, 100, 'the note booked');
    expect(roles(await entries(num(res.json.id)))).toEqual({
      receivables: ['0.00', '11500.00'],
      revenue_services: ['10000.00', '0.00'],
      third_party_payable: ['1500.00', '0.00'],
    });
    const ref = (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json;
    expect(ref.credited_total).toBe('565000.00');
  });

  it('refuses charges it cannot carry, with problem+json, and writes nothing', async () => {
    const before = await written();
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { lines: [{ line: 1, qty: 1 }], other_charges: [{ charge: 1 }] },
        '/other_charges/0/charge',
        'charge_follows_lines',
      ],
      [
        { lines: [{ line: 1, qty: 1 }], other_charges: [{ charge: 2 }] },
        '/other_charges/0/charge',
        'amount_exceeds_charge',
      ],
      [
        { lines: [{ line: 1, qty: 1 }], other_charges: [{ charge: 3 }] },
        '/other_charges/0/charge',
        'unknown_charge',
      ],
      [{ other_charges: [{ charge: 2 }] }, '/other_charges', 'not_applicable'],
    ];
    for (const [body, path, code] of cases) {
      const res = await api(e, 'POST', `/api/v1/invoices/${inv.id}/credit_notes`, s.key, {
        reason: 'Corrección de cargos',
        ...body,
      });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.errors).toEqual([expect.objectContaining({ path, code })]);
    }
    // A debit note names a fixed charge up to its amount.
    const over = await api(e, 'POST', `/api/v1/invoices/${inv.id}/debit_notes`, s.key, {
      reason: 'Cargo adicional',
      lines: [{ line: 2, amount: '100' }],
      other_charges: [{ charge: 2, amount: '600' }],
    });
    expect(over.status).toBe(422);
    expect(over.json.errors).toEqual([
      expect.objectContaining({ path: '/other_charges/0/amount', code: 'amount_exceeds_charge' }),
    ]);
    expect(await written()).toEqual(before);
  });
});

describe('a credit note of a document issued outside the service', () => {
  it('keeps its other charges and its several payments with their amounts, to aceptada', async () => {
    const ref = await acceptedInvoice();
    const res = await api(e, 'POST', '/api/v1/credit_notes', s.key, {
      reference: { clave: ref.clave, issue_date: ref.issue_date },
      reason: 'Devolución de un documento anterior',
      client_id: `cli_${String(s.client.id).padStart(12, '0')}`,
      lines: [{ service_id: srv(s.laptop.id), qty: 1 }],
      other_charges: [{ code: '06', detail: 'Servicio 10 %' }],
      payments: [{ method: 'tarjeta', amount: '300000.00' }, { method: 'efectivo' }],
    });
    expect(res.status, res.text).toBe(201);
    // 450000 + 13 % IVA + 10 % of the net sale.
    expect(res.json.total).toBe('553500.00');
    expect(res.json.payments).toEqual([
      { method: 'tarjeta', amount: '300000.00', other: null },
      { method: 'efectivo', amount: '253500.00', other: null },
    ]);
    const done = await waitForStatus(res.json.id, ['aceptada', 'rechazada']);
    expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
    const xml = (await api(e, 'GET', `/api/v1/invoices/${res.json.id}/xml`, s.key)).text;
    expect((await validateXml('NotaCreditoElectronica', xml)).valid).toBe(true);
    expect(xml).toContain('<TotalOtrosCargos>45000.00000</TotalOtrosCargos>');
    expect(xml.match(/<TotalMedioPago>[^<]*<\/TotalMedioPago>/g)).toEqual([
      '<TotalMedioPago>300000.00000</TotalMedioPago>',
      '<TotalMedioPago>253500.00000</TotalMedioPago>',
    ]);
  });
});

describe('partial credit notes that take a line unit by unit', () => {
  const cliId = () => `cli_${String(s.client.id).padStart(12, '0')}`;
  const credit = (id: string, lines: unknown) =>
    api(e, 'POST', `/api/v1/invoices/${id}/credit_notes`, s.key, { reason: 'Devolución parcial', lines });
  const xmlTotal = (xml: string, name: string) =>
    new Decimal(new RegExp(`<${name}>([^<]+)</${name}>`).exec(xml)![1]!);

  it('prorate a fixed-amount tax (99) by quantity: each unit carries half of it, and the second unit fits', async () => {
    // Two laptops at 25,000 (+13 % IVA) with a municipal tax of 150 for the line.
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cliId(),
      paid_at_issue: false,
      lines: [
        {
          service_id: srv(s.laptop.id),
          qty: 2,
          unit_price: '25000.00',
          taxes: [{ code: '99', code_other: 'Impuesto municipal de patente', amount: '150' }],
        },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.total).toBe('56650.00');
    const inv = await waitForStatus(res.json.id, ['aceptada']);

    const notes = [];
    for (let k = 0; k < 2; k++) {
      const note = await credit(inv.id, [{ line: 1, qty: 1 }]);
      expect(note.status, note.text).toBe(201);
      // 25,000 + 3,250 IVA + 75, half of the fixed tax.
      expect(note.json.total).toBe('28325.00');
      notes.push(note.json);
    }
    const ref = (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json;
    expect(ref).toMatchObject({ credited_total: '56650.00', balance_due: '0.00', annulled: true });
    for (const n of notes) {
      const done = await waitForStatus(n.id, ['aceptada', 'rechazada']);
      expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
      const xml = await signedXml(n.id);
      expect(xml).toMatch(
        /<Codigo>99<\/Codigo>\s*<CodigoImpuestoOTRO>[^<]+<\/CodigoImpuestoOTRO>\s*<Monto>75\.00000<\/Monto>/,
      );
      expect((await validateXml('NotaCreditoElectronica', xml)).valid).toBe(true);
    }
    // The tax credited never exceeds the tax invoiced: nothing of the line is left.
    const more = await credit(inv.id, [{ line: 1, amount: '0.01' }]);
    expect(more.status).toBe(422);
    expect(more.json.code).toBe('credit_exceeds_total');
  });

  it('notes that cover every unit add up to the invoice to the last 0.00001, and a tiny discount is no obstacle', async () => {
    // Three laptops at 28,084.34 less a discount of 10 for the line (a third of it does not
    // round evenly), and three exempt services at 1,000 with a discount of 0.00001 (a third of
    // it rounds to nothing).
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cliId(),
      paid_at_issue: false,
      lines: [
        { service_id: srv(s.laptop.id), qty: 3, unit_price: '28084.34', discount: { amount: '10' } },
        { service_id: srv(s.exempt.id), qty: 3, unit_price: '1000.00', discount: { amount: '0.00001' } },
      ],
    });
    expect(res.status, res.text).toBe(201);
    const inv = await waitForStatus(res.json.id, ['aceptada']);
    const invXml = await signedXml(inv.id);

    const ids: string[] = [];
    for (let k = 0; k < 3; k++) {
      const note = await credit(inv.id, [
        { line: 1, qty: 1 },
        { line: 2, qty: 1 },
      ]);
      expect(note.status, note.text).toBe(201);
      ids.push(note.json.id);
    }
    const ref = (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json;
    expect(ref).toMatchObject({
      credited_total: inv.total,
      balance_due: '0.00',
      payment_status: 'not_applicable',
      annulled: true,
    });

    // Every note is accepted, and together they equal the invoice exactly.
    const sums = {
      TotalVenta: new Decimal(0),
      TotalDescuentos: new Decimal(0),
      TotalImpuesto: new Decimal(0),
      TotalComprobante: new Decimal(0),
    };
    for (const id of ids) {
      const done = await waitForStatus(id, ['aceptada', 'rechazada']);
      expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
      const xml = await signedXml(id);
      expect((await validateXml('NotaCreditoElectronica', xml)).valid).toBe(true);
      for (const name of Object.keys(sums) as (keyof typeof sums)[])
        sums[name] = sums[name].plus(xmlTotal(xml, name));
    }
    for (const name of Object.keys(sums) as (keyof typeof sums)[])
      expect(sums[name].toFixed(5), name).toBe(xmlTotal(invXml, name).toFixed(5));
    const rows = (await e.db('invoices').whereIn('id', ids.map(num)).select('total')) as { total: string }[];
    expect(rows.reduce((t, r) => t.plus(r.total), new Decimal(0)).toFixed(5)).toBe(
      xmlTotal(invXml, 'TotalComprobante').toFixed(5),
    );

    const more = await credit(inv.id, [{ line: 2, amount: '0.01' }]);
    expect(more.status).toBe(422);
    expect(more.json.code).toBe('credit_exceeds_total');
  });

  it("the last units' IVA is what Hacienda recomputes from their base, not what was left: the note is accepted and the invoice fully credited", async () => {
    // Three laptops at 1,000.74 credited 0.333 + 0.333 + 2.334: the IVA the first two notes left
    // (303.64454) is 0.00001 more than round(2,335.72716 × 13 %, 5) = 303.64453, which Hacienda
    // expects of the last note; that 0.00001 stays, not creditable.
    const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: cliId(),
      paid_at_issue: false,
      lines: [{ service_id: srv(s.laptop.id), qty: 3, unit_price: '1000.74' }],
    });
    expect(res.status, res.text).toBe(201);
    const inv = await waitForStatus(res.json.id, ['aceptada']);
    const ids: string[] = [];
    for (const qty of ['0.333', '0.333', '2.334']) {
      const note = await credit(inv.id, [{ line: 1, qty }]);
      expect(note.status, note.text).toBe(201);
      ids.push(note.json.id);
    }
    for (const id of ids) {
      const done = await waitForStatus(id, ['aceptada', 'rechazada']);
      expect(done.status, JSON.stringify(done.rejection_reason)).toBe('aceptada');
    }
    const last = await signedXml(ids[2]!);
    expect(xmlTotal(last, 'TotalImpuesto').toFixed(5)).toBe('303.64453');
    const ref = (await api(e, 'GET', `/api/v1/invoices/${inv.id}`, s.key)).json;
    expect(ref).toMatchObject({
      credited_total: inv.total,
      balance_due: '0.00',
      payment_status: 'not_applicable',
      annulled: true,
    });
    for (const more of [
      await credit(inv.id, [{ line: 1, amount: '0.01' }]),
      await credit(inv.id, [{ line: 1, qty: '0.001' }]),
    ]) {
      expect(more.status).toBe(422);
      expect(more.json.code).toBe('credit_exceeds_total');
    }
  });
});
