// The default transport to Hacienda: Node's http/https with keep-alive agents. A worker sends each
// document once and asks for its status at least once; over a pooled connection that is one write
// and one read each, where fetch adds web streams, a Headers object and a Response per request
// (about a tenth of a worker's CPU in the benchmark's profile). Failures are classified as fetch's
// are (http.ts's kinds): the request timed out, never reached the server, or may have.
import http from 'node:http';
import https from 'node:https';
import { NOT_DELIVERED, TransportFailure } from './http.ts';
import type { HeaderReader, Transport, TransportFailureKind } from './http.ts';

// Idle connections close after 4 s (or sooner when the server announces a shorter Keep-Alive), so a
// request rarely meets one the server has already closed.
const POOL = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 4_000 };
const agents = { http: new http.Agent(POOL), https: new https.Agent(POOL) };

class IncomingHeaders implements HeaderReader {
  constructor(private readonly raw: http.IncomingHttpHeaders) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(', ') : v;
  }
}

function failureKind(err: unknown, timedOut: boolean, sent: boolean): TransportFailureKind {
  if (timedOut) return 'timeout';
  const code = (err as { code?: string } | null)?.code;
  if (code && NOT_DELIVERED.has(code)) return 'refused';
  // The connection failed before a byte of the request was written: it cannot have arrived.
  if (!sent && code === 'ECONNRESET') return 'refused';
  return 'network';
}

export const nodeTransport: Transport = (url, request, timeoutMs) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const headers: Record<string, string | number> = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    let timedOut = false;
    let sent = false;
    const req = (secure ? https : http).request(target, {
      method: request.method,
      headers,
      agent: secure ? agents.https : agents.http,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (err: unknown) => {
      clearTimeout(timer);
      reject(new TransportFailure(failureKind(err, timedOut, sent), { cause: err }));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: new IncomingHeaders(res.headers),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    req.on('socket', (socket) => {
      // A pooled socket is already connected; a new one counts once it connects.
      if (!socket.connecting) sent = true;
      else socket.once('connect', () => (sent = true));
    });
    req.end(request.body);
  });
