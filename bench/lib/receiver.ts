// The integrator's side of the end-to-end figure: a node:http server in the bench process that
// verifies every delivery's Service-Signature (domain/webhook-signature.ts, as an integrator
// would) and records when each invoice's `invoice.accepted` arrived. A bad signature is
// answered 400 and counted, never counted as delivered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../domain/webhook-signature.ts';

export interface Receiver {
  url: string;
  /** Set once the endpoint is registered (its secret is shown once). */
  secret: string;
  /** invoice public id → ms (performance.now()) of its first verified `invoice.accepted`. */
  accepted: Map<string, number>;
  deliveries: number;
  duplicates: number;
  badSignatures: number;
  otherEvents: number;
  /** Bytes of the last verified `invoice.accepted` body (0 before the first). */
  acceptedBodyBytes: number;
  /** Resolves when every id in `ids` has been accepted, or after `timeoutMs` (then false). */
  waitFor(ids: Iterable<string>, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters = new Set<(id: string) => void>();
  const r: Receiver = {
    url: '',
    secret: '',
    accepted: new Map(),
    deliveries: 0,
    duplicates: 0,
    badSignatures: 0,
    otherEvents: 0,
    acceptedBodyBytes: 0,
    async waitFor(ids, timeoutMs) {
      const pending = new Set([...ids].filter((id) => !r.accepted.has(id)));
      if (pending.size === 0) return true;
      return new Promise<boolean>((resolve) => {
        const check = (id: string) => {
          if (pending.delete(id) && pending.size === 0) done(true);
        };
        const timer = setTimeout(() => done(false), timeoutMs);
        const done = (ok: boolean) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(ok);
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const at = performance.now();
      r.deliveries++;
      const header = req.headers['service-signature'];
      const verified = verifyWebhookSignature(raw, typeof header === 'string' ? header : undefined, r.secret);
      if (!verified.ok) {
        r.badSignatures++;
        res.writeHead(400).end(verified.reason);
        return;
      }
      const body = JSON.parse(raw.toString('utf8')) as { event: string; data: { id?: string } };
      if (body.event === 'invoice.accepted' && body.data.id) {
        r.acceptedBodyBytes = raw.length;
        if (r.accepted.has(body.data.id)) r.duplicates++;
        else r.accepted.set(body.data.id, at);
        for (const w of waiters) w(body.data.id);
      } else r.otherEvents++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return r;
}
