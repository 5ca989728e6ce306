// Errors of the client of Hacienda's public services (api.hacienda.go.cr), by how a caller ends:
// - PublicDataNotFoundError: Hacienda answered 404 (the taxpayer is not in its register, or the day
//   has no rate). Permanent for that question.
// - PublicDataUnavailableError: no answer could be had (connection refused or broken, timeout, a
//   5xx after the in-process retries, a 429, a body that is not the documented JSON). Try later,
//   after retryAfterMs when Hacienda said (Retry-After).

export class PublicDataNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublicDataNotFoundError';
  }
}

export type PublicDataFailure = 'timeout' | 'connection' | 'server_error' | 'rate_limited' | 'bad_answer';

export class PublicDataUnavailableError extends Error {
  constructor(
    message: string,
    readonly reason: PublicDataFailure,
    readonly status: number | null = null,
    readonly retryAfterMs: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PublicDataUnavailableError';
  }
}
