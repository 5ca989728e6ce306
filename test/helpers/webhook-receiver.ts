// A real webhook receiver for tests: node:http on 127.0.0.1 (port 0), verifying every request's
// signature and timestamp with the exported helper, recording what it got, answering with a
// status chosen per request. It can go down (connections refused) and come back on its port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature, type VerifyResult } from '../../domain/webhook-signature.ts';

export interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: { id: string; event: string; created_at: string; sequence: number | null; data: Record<string, any> };
  /** Verified with every secret the receiver holds, together. */
  verified: VerifyResult;
  /** Verified with each secret alone, in order. */
  perSecret: VerifyResult[];
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  secrets: string[];
  /** Status to answer for the n-th request (0-based); 200 by default. */
  respond: (n: number, r: Received) => number;
  /** How long to wait before answering the n-th request (ms); 0 by default. */
  delay: (n: number) => number;
  ofKind(event: string): Received[];
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(secrets: string[] = []): Promise<Receiver> {
  let server: http.Server;
  const r: Receiver = {
    url: '',
    port: 0,
    received: [],
    secrets,
    respond: () => 200,
    delay: () => 0,
    ofKind: (event) => r.received.filter((x) => x.body.event === event),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
    async restart() {
      server = make();
      await new Promise<void>((res) => server.listen(r.port, '127.0.0.1', () => res()));
    },
    async close() {
      if (server.listening) await r.stop();
    },
  };
  const make = () =>
    http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const header = req.headers['service-signature'] as string | undefined;
        const got: Received = {
          at: Date.now(),
          headers: req.headers,
          raw,
          body: JSON.parse(raw),
          verified: verifyWebhookSignature(raw, header, r.secrets),
          perSecret: r.secrets.map((s) => verifyWebhookSignature(raw, header, s)),
        };
        const n = r.received.length;
        r.received.push(got);
        const status = r.respond(n, got);
        const answer = () => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(status >= 200 && status < 300 ? 'ok' : `nope ${status}`);
        };
        const wait = r.delay(n);
        if (wait > 0) setTimeout(answer, wait).unref();
        else answer();
      });
    });
  server = make();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hooks`;
  return r;
}
