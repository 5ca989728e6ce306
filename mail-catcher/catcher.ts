// The local mail catcher: a real SMTP server (smtp-server) that keeps what it receives in memory,
// parsed with mailparser, and a small HTTP page listing it. Nothing it receives goes anywhere
// else. To try failure paths, recipients can ask for a refusal: a local part starting with
// `bounce` (or the domain `bounce.invalid`) is refused at RCPT TO with 550 (a permanent bounce),
// one starting with `defer` with 451 (transient: the sender should retry).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import type { CaughtMessage } from './message.ts';
import { renderIndex } from './page.ts';

export type { CaughtAttachment, CaughtMessage } from './message.ts';

export interface MailCatcher {
  smtpPort: number;
  httpPort: number;
  messages: CaughtMessage[];
  close(): Promise<void>;
}

export interface MailCatcherOptions {
  host?: string;
  smtpPort?: number;
  httpPort?: number;
  /** Oldest messages are dropped past this many. */
  maxMessages?: number;
}

const addresses = (a: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address ?? '')).filter(Boolean);

function refusal(address: SMTPServerAddress): { code: number; message: string } | null {
  const [local = '', domain = ''] = address.address.toLowerCase().split('@');
  if (local.startsWith('bounce') || domain === 'bounce.invalid')
    return { code: 550, message: `5.1.1 <${address.address}>: mailbox unavailable (mail catcher)` };
  if (local.startsWith('defer'))
    return { code: 451, message: `4.3.0 <${address.address}>: try again later (mail catcher)` };
  return null;
}

export async function startMailCatcher(o: MailCatcherOptions = {}): Promise<MailCatcher> {
  const host = o.host ?? '127.0.0.1';
  const messages: CaughtMessage[] = [];
  const smtp = createSmtpServer(messages, o.maxMessages ?? 500);
  smtp.on('error', () => {}); // a client's broken connection is not the catcher's failure
  const http: Server = createServer((req, res) => servePage(messages, req, res));

  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(o.smtpPort ?? 0, host, () => resolve());
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.httpPort ?? 0, host, () => resolve());
  });
  return {
    smtpPort: (smtp.server.address() as AddressInfo).port,
    httpPort: (http.address() as AddressInfo).port,
    messages,
    async close() {
      await new Promise<void>((r) => smtp.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** The SMTP server: refuses the recipients that ask for it, keeps the last `max` messages in `messages`. */
function createSmtpServer(messages: CaughtMessage[], max: number): SMTPServer {
  let nextId = 1;
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    banner: 'factura-cr mail catcher (nothing leaves this machine)',
    size: 25 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      const r = refusal(address);
      if (!r) return callback();
      const err = new Error(r.message) as Error & { responseCode: number };
      err.responseCode = r.code;
      return callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (m) => {
            messages.push(caughtMessage(nextId++, session, m, raw));
            while (messages.length > max) messages.shift();
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
}

/** A parsed message as the catcher keeps it, with the envelope of its SMTP session. */
function caughtMessage(id: number, session: SMTPServerSession, m: ParsedMail, raw: Buffer): CaughtMessage {
  return {
    id,
    receivedAt: new Date().toISOString(),
    envelope: {
      from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
      to: session.envelope.rcptTo.map((r) => r.address),
    },
    subject: m.subject ?? null,
    from: m.from?.value[0]?.address ?? null,
    to: addresses(m.to),
    cc: addresses(m.cc),
    replyTo: addresses(m.replyTo),
    messageId: m.messageId ?? null,
    headers: Object.fromEntries(m.headerLines.map((h) => [h.key, h.line.slice(h.key.length + 1).trim()])),
    text: m.text ?? null,
    attachments: m.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.contentType,
      size: a.size,
      content: a.content,
    })),
    raw,
  };
}

/** The HTTP side: the page, the messages as JSON, each raw message and attachment, and DELETE /messages. */
function servePage(messages: CaughtMessage[], req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://catcher');
  const send = (status: number, type: string, body: string | Buffer) =>
    void res
      .writeHead(status, {
        'content-type': type,
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
        'x-content-type-options': 'nosniff',
      })
      .end(body);
  if (req.method === 'DELETE' && url.pathname === '/messages') {
    messages.length = 0;
    return send(204, 'text/plain', '');
  }
  if (req.method !== 'GET') return send(405, 'text/plain', 'method not allowed');
  if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', renderIndex(messages));
  if (url.pathname === '/messages')
    return send(
      200,
      'application/json',
      JSON.stringify(
        messages.map(({ raw: _raw, attachments, ...m }) => ({
          ...m,
          attachments: attachments.map(({ content: _c, ...a }) => a),
        })),
      ),
    );
  const m = /^\/messages\/(\d+)(?:\/(raw|attachments\/(\d+)))?$/.exec(url.pathname);
  const msg = m ? messages.find((x) => x.id === Number(m[1])) : undefined;
  if (!m || !msg) return send(404, 'text/plain', 'not found');
  if (m[2] === 'raw') return send(200, 'message/rfc822', msg.raw);
  if (m[3] !== undefined) {
    const a = msg.attachments[Number(m[3])];
    if (!a) return send(404, 'text/plain', 'not found');
    res.setHeader(
      'content-disposition',
      `attachment; filename="${(a.filename ?? 'file').replace(/"/g, '')}"`,
    );
    return send(200, a.contentType, a.content);
  }
  return send(
    200,
    'application/json',
    JSON.stringify({
      ...msg,
      raw: undefined,
      attachments: msg.attachments.map(({ content: _c, ...a }) => a),
    }),
  );
}
