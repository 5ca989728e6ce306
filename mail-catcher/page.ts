// The mail catcher's page: what was sent, newest first, with recipients (BCC from the envelope),
// reply-to and attachments to download. Plain HTML, no script.
import type { CaughtMessage } from './message.ts';

const esc = (s: string | null | undefined): string =>
  (s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderIndex(messages: readonly CaughtMessage[]): string {
  const rows = [...messages]
    .reverse()
    .map((m) => {
      const bcc = m.envelope.to.filter((a) => !m.to.includes(a) && !m.cc.includes(a));
      const files = m.attachments
        .map((a, i) => `<a href="/messages/${m.id}/attachments/${i}">${esc(a.filename)}</a> (${a.size} B)`)
        .join('<br>');
      return `<tr><td>${m.id}</td><td>${esc(m.receivedAt)}</td><td>${esc(m.from)}</td>
<td>${esc(m.to.join(', '))}${bcc.length ? `<br><small>BCC: ${esc(bcc.join(', '))}</small>` : ''}</td>
<td>${esc(m.replyTo.join(', '))}</td><td>${esc(m.subject)}<br><small><a href="/messages/${m.id}/raw">.eml</a></small></td>
<td>${files}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Mail catcher · factura-cr</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}small{color:#666}</style></head>
<body><h1>Mail catcher</h1><p>${messages.length} message(s) caught. Nothing sent here leaves this machine.
JSON: <a href="/messages">/messages</a>.</p>
<table><thead><tr><th>#</th><th>Received</th><th>From</th><th>To</th><th>Reply-To</th><th>Subject</th><th>Attachments</th></tr></thead>
<tbody>${rows || '<tr><td colspan="7">Nothing yet.</td></tr>'}</tbody></table></body></html>`;
}
