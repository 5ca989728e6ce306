// HTTP plumbing shared by the token manager and the reception client: Node's global fetch with an
// AbortSignal timeout, failures classified by whether the request can have reached Hacienda, and
// Hacienda's rate-limit headers (X-Ratelimit-Limit/Remaining/Reset, Reset in UTC epoch seconds).

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

/** A response whose body has been read within the timeout. */
export interface ReadResponse {
  status: number;
  headers: Headers;
  text: string;
}

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
const NOT_DELIVERED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function classify(err: unknown): TransportFailureKind {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timeout';
  const cause =
    err instanceof Error ? (err.cause as { code?: string; name?: string } | undefined) : undefined;
  if (cause?.name === 'ConnectTimeoutError') return 'refused';
  if (cause?.code && NOT_DELIVERED.has(cause.code)) return 'refused';
  return 'network';
}

/** Sends a request and reads its body, all within timeoutMs. Throws TransportFailure only. */
export async function send(
  fetchImpl: FetchLike,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<ReadResponse> {
  try {
    const res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text };
  } catch (err) {
    throw new TransportFailure(classify(err), { cause: err });
  }
}

export interface RateLimitInfo {
  limit: number | null;
  remaining: number | null;
  /** Epoch milliseconds at which the window resets. */
  resetAt: number | null;
}

function intHeader(headers: Headers, name: string): number | null {
  const v = headers.get(name);
  if (v === null || !/^\s*-?\d+(\.\d+)?\s*$/.test(v)) return null;
  return Number(v);
}

export function readRateLimit(headers: Headers): RateLimitInfo | null {
  const limit = intHeader(headers, 'x-ratelimit-limit');
  const remaining = intHeader(headers, 'x-ratelimit-remaining');
  const reset = intHeader(headers, 'x-ratelimit-reset');
  if (limit === null && remaining === null && reset === null) return null;
  return { limit, remaining, resetAt: reset === null ? null : reset * 1000 };
}

/** How long to wait after a 429: Retry-After (seconds or HTTP date), else X-Ratelimit-Reset. */
export function waitFromHeaders(headers: Headers, now: number): number | null {
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
