// One webhook POST: the signed body, a total timeout, no redirects followed (a 3xx is a failed
// attempt), and at most 1 KB of the answer kept. Connections are kept alive and reused (node's
// http.Agent): deliveries to one receiver share a few sockets instead of a TCP (and TLS) set-up
// each. Live endpoints connect through publicOnlyLookup, so every new connection is made only to
// a checked public address (a DNS answer that changes later cannot reach a private one); their
// pool is apart from the sandbox one, so a socket opened for an endpoint allowed to be private is
// never handed to one that must be public.
import http from 'node:http';
import https from 'node:https';
import { ForbiddenAddressError, literalAddressAllowed, publicOnlyLookup } from './address.ts';

/** Bytes of the receiver's answer kept with the attempt. */
export const EXCERPT_BYTES = 1024;

const POOL = {
  keepAlive: true,
  // An idle socket is closed after 4 s, or 1 s before the receiver's own Keep-Alive timeout when it
  // announces a shorter one (node's agent reads the hint), so a reused socket is rarely one the
  // receiver is closing at that moment (node's server default is 5 s).
  timeout: 4_000,
  // Idle sockets kept per receiver (host and port): about the deliveries a worker has in flight.
  maxFreeSockets: 64,
  scheduling: 'lifo' as const,
};

/** The keep-alive pools: by scheme, and apart for endpoints that must reach public addresses. */
const agents = {
  any: { http: new http.Agent(POOL), https: new https.Agent(POOL) },
  // The agent's options reach net.connect for every socket it opens, lookup included.
  publicOnly: {
    http: new http.Agent({ ...POOL, lookup: publicOnlyLookup }),
    https: new https.Agent({ ...POOL, lookup: publicOnlyLookup }),
  },
};

/** Closes every pooled connection (worker shutdown, tests). */
export function closeWebhookConnections(): void {
  for (const pool of Object.values(agents)) for (const agent of Object.values(pool)) agent.destroy();
}

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface PostOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Live endpoints: only public addresses. */
  publicOnly: boolean;
}

export async function postWebhook(o: PostOptions): Promise<PostResult> {
  const started = performance.now();
  if (o.publicOnly && !literalAddressAllowed(o.url)) {
    return {
      statusCode: null,
      durationMs: 0,
      error: new ForbiddenAddressError(new URL(o.url).hostname, new URL(o.url).hostname).message,
      responseExcerpt: null,
    };
  }
  const first = await postOnce(o, started);
  // A pooled socket the receiver closed while idle fails at once with a reset and no answer: the
  // POST is sent again, once, on a new connection (node's documented way for keep-alive clients;
  // a receiver that did see the first copy deduplicates on the event id).
  if (first.resetOnReusedSocket) return (await postOnce(o, started, false)).result;
  return first.result;
}

/** The first EXCERPT_BYTES of an answer's body, kept for the attempt row. */
function bodyExcerpt() {
  const chunks: Buffer[] = [];
  let kept = 0;
  return {
    /** Keeps a chunk while there is room; true once enough is kept. */
    add(c: Buffer): boolean {
      if (kept < EXCERPT_BYTES) {
        chunks.push(c);
        kept += c.length;
      }
      return kept >= EXCERPT_BYTES;
    },
    // Text for the attempt row: at most EXCERPT_BYTES, decoded leniently, without NUL characters
    // (Postgres text refuses them).
    text(): string | null {
      const bytes = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES);
      if (bytes.length === 0) return null;
      return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replaceAll('\u0000', '');
    },
  };
}

function postOnce(
  o: PostOptions,
  started: number,
  reuse = true,
): Promise<{ result: PostResult; resetOnReusedSocket: boolean }> {
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(o.url);
  const https_ = url.protocol === 'https:';
  const transport = https_ ? https : http;
  const pool = o.publicOnly ? agents.publicOnly : agents.any;
  // Not reused: a connection of its own, closed after this request (the lookup then goes on the request).
  const connection = reuse
    ? { agent: https_ ? pool.https : pool.http }
    : { agent: false as const, ...(o.publicOnly ? { lookup: publicOnlyLookup } : {}) };
  return new Promise((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    const body = bodyExcerpt();
    const excerpt = () => body.text();
    const finish = (r: Omit<PostResult, 'durationMs'>, resetOnReusedSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ result: { ...r, durationMs: elapsed() }, resetOnReusedSocket });
    };
    let req: http.ClientRequest | null = null;
    // The timeout covers the whole exchange; an answer whose status arrived in time counts by its
    // status even if its body is slow.
    const timer = setTimeout(() => {
      finish(
        statusCode === null
          ? { statusCode: null, error: `timed out after ${o.timeoutMs} ms`, responseExcerpt: null }
          : { statusCode, error: null, responseExcerpt: excerpt() },
      );
      req?.destroy();
    }, o.timeoutMs);
    try {
      req = transport.request(
        url,
        {
          method: 'POST',
          headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)) },
          ...connection,
        },
        (res) => {
          statusCode = res.statusCode ?? null;
          const done = () => finish({ statusCode, error: null, responseExcerpt: excerpt() });
          res.on('data', (c: Buffer) => {
            // Enough kept: the rest of the body is not read, and its connection is not reused.
            if (body.add(c)) {
              done();
              res.destroy();
            }
          });
          // Read to the end: the socket goes back to the pool.
          res.on('end', done);
          res.on('error', done);
        },
      );
    } catch (err) {
      // Refused before anything was sent (a malformed URL or header).
      finish({ statusCode: null, error: (err as Error).message, responseExcerpt: null });
      return;
    }
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish(
        {
          statusCode: null,
          error: err.code ? `${err.code}: ${err.message}` : err.message,
          responseExcerpt: null,
        },
        reuse && req?.reusedSocket === true && statusCode === null && err.code === 'ECONNRESET',
      );
    });
    req.end(o.body);
  });
}
