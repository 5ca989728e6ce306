// A small HTTP load generator on node:http with keep-alive connections: `request` for single
// calls and `closedLoop` for a fixed number of connections each sending its next request as soon
// as the previous answer is read (a closed loop: the rate is what the server sustains at that
// concurrency, and every latency is a real round trip). Also percentiles.
import http from 'node:http';

export interface HttpClient {
  agent: http.Agent;
  base: URL;
  headers: Record<string, string>;
}

export interface HttpAnswer {
  status: number;
  body: string;
}

export function httpClient(baseUrl: string, headers: Record<string, string>, sockets: number): HttpClient {
  return {
    agent: new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets }),
    base: new URL(baseUrl),
    headers,
  };
}

export function request(
  c: HttpClient,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent: c.agent,
        host: c.base.hostname,
        port: c.base.port,
        method,
        path,
        headers: {
          ...c.headers,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface LoopResult {
  /** Requests completed inside the measured window. */
  count: number;
  errors: number;
  /** First error statuses/messages seen (a few). */
  errorSamples: string[];
  seconds: number;
  latenciesMs: number[];
}

/**
 * `concurrency` loops call `op(n)` back to back for `warmupS + seconds`; only requests that
 * start after the warm-up count. `op` resolves with the HTTP status; 2xx is success.
 */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  warmupS: number,
  op: (n: number) => Promise<number>,
): Promise<LoopResult> {
  let n = 0;
  const start = performance.now();
  const measureFrom = start + warmupS * 1000;
  const end = measureFrom + seconds * 1000;
  const latenciesMs: number[] = [];
  let errors = 0;
  const errorSamples: string[] = [];
  let lastDone = measureFrom;
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      let ok = false;
      try {
        const status = await op(n++);
        ok = status >= 200 && status < 300;
        if (!ok && errorSamples.length < 5) errorSamples.push(`HTTP ${status}`);
      } catch (err) {
        if (errorSamples.length < 5) errorSamples.push((err as Error).message);
      }
      const t1 = performance.now();
      if (t0 >= measureFrom) {
        if (ok) latenciesMs.push(t1 - t0);
        else errors++;
        lastDone = Math.max(lastDone, t1);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return {
    count: latenciesMs.length,
    errors,
    errorSamples,
    seconds: (lastDone - measureFrom) / 1000,
    latenciesMs,
  };
}

/** Runs `op` over `items` with at most `concurrency` in flight; returns results in order. */
export async function pool<T, R>(
  items: T[],
  concurrency: number,
  op: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await op(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

export const round = (x: number, digits = 1): number =>
  Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x;
