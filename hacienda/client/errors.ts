// Errors of the Hacienda client, typed by how each failure must end:
// - HaciendaUnknownOutcomeError: a POST got a 5xx, a timeout or a broken connection; Hacienda may
//   or may not have the document. Retryable, but the next step is to poll the same clave.
// - HaciendaUnavailableError: nothing was processed (connection refused, 429 beyond our patience,
//   GET failures after the in-process retries). Retryable after retryAfterMs when given.
// - HaciendaRejectedError: Hacienda refused the request itself (400 with X-Error-Cause, 403, 404 on
//   POST…). Permanent: resending the same payload cannot succeed.
// - HaciendaAuthError: the IDP refused the credentials. Permanent until the credentials change.
// A business rejection (ind-estado "rechazado") is NOT an error: it is a status result.

export abstract class HaciendaError extends Error {
  abstract readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export type UnknownOutcomeReason = 'timeout' | 'server_error' | 'network';

export class HaciendaUnknownOutcomeError extends HaciendaError {
  readonly retryable = true;
  readonly outcome = 'unknown' as const;
  constructor(
    message: string,
    readonly reason: UnknownOutcomeReason,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type UnavailableReason =
  'rate_limited' | 'connection_refused' | 'server_error' | 'timeout' | 'network';

export class HaciendaUnavailableError extends HaciendaError {
  readonly retryable = true;
  readonly outcome = 'not_received' as const;
  constructor(
    message: string,
    readonly reason: UnavailableReason,
    readonly status: number | null = null,
    /** How long Hacienda asked us to wait, when it said so. */
    readonly retryAfterMs: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class HaciendaRejectedError extends HaciendaError {
  readonly retryable = false;
  constructor(
    message: string,
    readonly status: number,
    /** Hacienda's X-Error-Cause header, verbatim. */
    readonly errorCause: string | null,
    /** True when Hacienda flagged the JSON body itself (validation-exception header). */
    readonly validationException: boolean,
  ) {
    super(message);
  }
}

export class HaciendaAuthError extends HaciendaError {
  readonly retryable = false;
  constructor(
    message: string,
    readonly status: number,
    /** OAuth error code from the IDP, e.g. invalid_grant, invalid_client. */
    readonly error: string | null,
    readonly description: string | null,
  ) {
    super(message);
  }
}
