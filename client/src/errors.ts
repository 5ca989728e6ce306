// Errors of the API as one typed error: every failure the service answers is RFC 9457
// problem+json with a stable `code` (branch on it, not on the text) and, for invalid input, the
// fields at fault in `errors` (a JSON pointer `path` and a `code` each).
import type { components } from './schema.ts';

export type Problem = components['schemas']['Problem'];
export type ProblemCode = Problem['code'];
export type FieldError = components['schemas']['FieldError'];

export class FacturaApiError extends Error {
  override readonly name = 'FacturaApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The stable error code (`validation_failed`, `resource_not_found`, …); `http_<status>` when the body was not a problem. */
  readonly code: ProblemCode | `http_${number}`;
  /** The whole problem body as the service sent it (null when it was not problem+json). */
  readonly problem: Problem | null;
  /** The fields at fault (validation_failed), else empty. */
  readonly fieldErrors: FieldError[];
  /** The service's request id (give it to support), from the body or the Request-Id header. */
  readonly requestId: string | null;
  /** Seconds to wait before trying again (429 and 503 answers carry Retry-After). */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: unknown, headers: Headers) {
    const problem = isProblem(body) ? body : null;
    super(problem ? `${problem.code}: ${problem.detail}` : `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.code = problem?.code ?? `http_${status}`;
    this.fieldErrors = problem?.errors ?? [];
    this.requestId = problem?.request_id ?? headers.get('request-id');
    const retry = Number(headers.get('retry-after'));
    this.retryAfterSeconds = headers.has('retry-after') && Number.isFinite(retry) ? retry : null;
  }

  /** The first error on a field, by its JSON pointer (`/lines/0/qty`). */
  field(path: string): FieldError | undefined {
    return this.fieldErrors.find((e) => e.path === path);
  }
}

function isProblem(body: unknown): body is Problem {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return typeof b.code === 'string' && typeof b.status === 'number' && typeof b.detail === 'string';
}
