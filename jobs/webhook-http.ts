// One webhook POST: the signed body, a total timeout, no redirects followed (a 3xx is a failed
// attempt), and at most 1 KB of the answer kept. Live endpoints connect through
// publicOnlyLookup, so a private address is refused at connection time as well.
import http from 'node:http';
import https from 'node:https';
import { ForbiddenAddressError, literalAddressAllowed, publicOnlyLookup } from './webhook-address.ts';

/** Bytes of the receiver's answer kept with the attempt. */
export const EXCERPT_BYTES = 1024;

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
  const elapsed = () => Math.round(performance.now() - started);
  if (o.publicOnly && !literalAddressAllowed(o.url)) {
    return {
      statusCode: null,
      durationMs: 0,
      error: new ForbiddenAddressError(new URL(o.url).hostname, new URL(o.url).hostname).message,
      responseExcerpt: null,
    };
  }
  const url = new URL(o.url);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    // Text for the attempt row: at most EXCERPT_BYTES, decoded leniently, without NUL characters
    // (Postgres text refuses them).
    const excerpt = (): string | null => {
      const bytes = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES);
      if (bytes.length === 0) return null;
      return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replaceAll('\u0000', '');
    };
    const finish = (r: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed() });
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
          agent: false,
          ...(o.publicOnly ? { lookup: publicOnlyLookup as never } : {}),
        },
        (res) => {
          statusCode = res.statusCode ?? null;
          const done = () => {
            finish({ statusCode, error: null, responseExcerpt: excerpt() });
            res.destroy();
          };
          res.on('data', (c: Buffer) => {
            if (kept < EXCERPT_BYTES) {
              chunks.push(c);
              kept += c.length;
            }
            // Enough kept: the rest of the body is not read.
            if (kept >= EXCERPT_BYTES) done();
          });
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
      finish({
        statusCode: null,
        error: err.code ? `${err.code}: ${err.message}` : err.message,
        responseExcerpt: null,
      });
    });
    req.end(o.body);
  });
}
