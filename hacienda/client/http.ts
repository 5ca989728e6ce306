// HTTP plumbing shared by the token manager and the reception client: a transport that sends one
// request and reads its body within a timeout (Node's http/https over keep-alive connections by
// default, node-transport.ts; a fetch-like function when one is given, as tests do), failures
// classified by whether the request can have reached Hacienda, and Hacienda's rate-limit headers
// (X-Ratelimit-Limit/Remaining/Reset, Reset in UTC epoch seconds).

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Time source and sleeper, injectable so tests can run without waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/** Response headers by (case-insensitive) name; fetch's Headers is one. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** A response whose body has been read within the timeout. */
export interface ReadResponse {
  status: number;
  headers: HeaderReader;
  text: string;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
}

/** Sends a request and reads its body, all within timeoutMs. Throws TransportFailure only. */
export type Transport = (url: string, request: RequestSpec, timeoutMs: number) => Promise<ReadResponse>;

export type TransportFailureKind = 'timeout' | 'refused' | 'network';

/** The request did not produce a response. `refused` means it never reached the server. */
export class TransportFailure extends Error {
  constructor(
    readonly kind: TransportFailureKind,
    options: { cause: unknown },
  ) {
    super(`request failed: ${kind}`, options);
    this.name = 'TransportFailure';
  }
}

// Connection-level codes that prove the request was never delivered.
export const NOT_DELIVERED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function classify(err: unknown): TransportFailureKind {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timeout';
  const cause =
    err instanceof Error ? (err.cause as { code?: string; name?: string } | undefined) : undefined;
  if (cause?.name === 'ConnectTimeoutError') return 'refused';
  if (cause?.code && NOT_DELIVERED.has(cause.code)) return 'refused';
  return 'network';
}

/** A transport over a fetch-like function (the global fetch, or a test's). */
export function fetchTransport(fetchImpl: FetchLike): Transport {
  return async (url, request, timeoutMs) => {
    try {
      const res = await fetchImpl(url, { ...request, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    } catch (err) {
      throw new TransportFailure(classify(err), { cause: err });
    }
  };
}

export interface RateLimitInfo {
  limit: number | null;
  remaining: number | null;
  /** Epoch milliseconds at which the window resets. */
  resetAt: number | null;
}

function intHeader(headers: HeaderReader, name: string): number | null {
  const v = headers.get(name);
  if (v === null || !/^\s*-?\d+(\.\d+)?\s*$/.test(v)) return null;
  return Number(v);
}

export function readRateLimit(headers: HeaderReader): RateLimitInfo | null {
  const limit = intHeader(headers, 'x-ratelimit-limit');
  const remaining = intHeader(headers, 'x-ratelimit-remaining');
  const reset = intHeader(headers, 'x-ratelimit-reset');
  if (limit === null && remaining === null && reset === null) return null;
  return { limit, remaining, resetAt: reset === null ? null : reset * 1000 };
}

/** How long to wait after a 429: Retry-After (seconds or HTTP date), else X-Ratelimit-Reset. */
export function waitFromHeaders(headers: HeaderReader, now: number): number | null {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    if (/^\s*\d+(\.\d+)?\s*$/.test(retryAfter)) return Math.max(0, Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = readRateLimit(headers)?.resetAt;
  if (reset !== null && reset !== undefined) return Math.max(0, reset - now);
  return null;
}
