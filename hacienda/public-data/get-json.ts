// One GET of a public Hacienda service: within a timeout, retried in process (p-retry, through
// ../client/retry.ts) when the answer is a 5xx or the connection failed or timed out (a GET is safe
// to repeat); a 404 is PublicDataNotFoundError, a 429 or anything else that is not a JSON 200 is
// PublicDataUnavailableError. The transport is the reception client's (Node's http with
// keep-alive), or a test's fetch.
import { fetchTransport, systemClock, TransportFailure, waitFromHeaders } from '../client/http.ts';
import type { Clock, FetchLike, Transport } from '../client/http.ts';
import { nodeTransport } from '../client/node-transport.ts';
import { withRetries } from '../client/retry.ts';
import { PublicDataNotFoundError, PublicDataUnavailableError } from './errors.ts';

export interface PublicDataClientOptions {
  /** Base of the services, e.g. https://api.hacienda.go.cr (no trailing slash needed). */
  baseUrl: string;
  /** Per attempt. */
  timeoutMs?: number;
  /** Retries after the first attempt (5xx, timeouts, connection failures). */
  retries?: number;
  retryBaseDelayMs?: number;
  fetch?: FetchLike;
  transport?: Transport;
  clock?: Clock;
}

export type GetJson = (path: string, query: Record<string, string>) => Promise<unknown>;

function unavailable(err: unknown): PublicDataUnavailableError {
  if (err instanceof PublicDataUnavailableError) return err;
  if (err instanceof TransportFailure) {
    const reason = err.kind === 'timeout' ? 'timeout' : 'connection';
    return new PublicDataUnavailableError(`Hacienda did not answer (${err.kind})`, reason, null, null, {
      cause: err,
    });
  }
  return new PublicDataUnavailableError('Hacienda did not answer', 'connection', null, null, { cause: err });
}

const retryable = (err: unknown) =>
  err instanceof TransportFailure ||
  (err instanceof PublicDataUnavailableError && err.reason === 'server_error');

export function createGetJson(o: PublicDataClientOptions): GetJson {
  const transport = o.transport ?? (o.fetch ? fetchTransport(o.fetch) : nodeTransport);
  const clock = o.clock ?? systemClock;
  const base = o.baseUrl.replace(/\/+$/, '');
  const timeoutMs = o.timeoutMs ?? 5_000;
  const policy = { retries: o.retries ?? 2, baseDelayMs: o.retryBaseDelayMs ?? 200, clock };
  return async (path, query) => {
    const url = `${base}${path}?${new URLSearchParams(query).toString()}`;
    const once = async (): Promise<unknown> => {
      const res = await transport(url, { method: 'GET', headers: { accept: 'application/json' } }, timeoutMs);
      if (res.status === 404) throw new PublicDataNotFoundError(`Hacienda answered 404 for ${path}`);
      if (res.status === 429)
        throw new PublicDataUnavailableError(
          'Hacienda limited the requests (429)',
          'rate_limited',
          429,
          waitFromHeaders(res.headers, clock.now()),
        );
      if (res.status >= 500)
        throw new PublicDataUnavailableError(`Hacienda answered ${res.status}`, 'server_error', res.status);
      if (res.status !== 200)
        throw new PublicDataUnavailableError(`Hacienda answered ${res.status}`, 'bad_answer', res.status);
      try {
        return JSON.parse(res.text) as unknown;
      } catch (err) {
        throw new PublicDataUnavailableError(
          'Hacienda answered a body that is not JSON',
          'bad_answer',
          200,
          null,
          {
            cause: err,
          },
        );
      }
    };
    try {
      return await withRetries(once, retryable, policy);
    } catch (err) {
      if (err instanceof PublicDataNotFoundError) throw err;
      throw unavailable(err);
    }
  };
}
