// The application's API client: openapi-fetch typed by the client package's generated schema, so
// every call is checked against the same OpenAPI document integrators use. It sends the session
// cookie (same origin), the current company and mode (Factura-Company, Factura-Mode) and, on
// unsafe methods, the session's CSRF token (X-CSRF-Token). Failures (problem+json) become ApiError.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../client/src/schema.ts';

export type { components, paths };
/** The OpenAPI document's named schemas (Company, Branch, Membership…). */
export type Schemas = components['schemas'];

export type Mode = 'test' | 'live';

interface RequestContext {
  companyId: string | null;
  mode: Mode;
  csrfToken: string | null;
}

const context: RequestContext = { companyId: null, mode: 'test', csrfToken: null };

/** Set by the session: which company and mode the next requests speak for, and the CSRF token. */
export function setRequestContext(next: Partial<RequestContext>): void {
  Object.assign(context, next);
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The headers every request of the application carries. */
function contextHeaders(method: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (context.companyId) {
    headers['Factura-Company'] = context.companyId;
    headers['Factura-Mode'] = context.mode;
  }
  if (UNSAFE.has(method.toUpperCase()) && context.csrfToken) headers['X-CSRF-Token'] = context.csrfToken;
  headers['Accept-Language'] = document.documentElement.lang === 'en' ? 'en' : 'es-CR';
  return headers;
}

const contextMiddleware: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(contextHeaders(request.method)))
      if (!request.headers.has(name)) request.headers.set(name, value);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use(contextMiddleware);

export interface FieldProblem {
  path: string;
  code: string;
  message?: string;
}

/** A failure the API answered: its stable code, the field at fault (if any) and its explanation. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  /** The field at fault: `field`, else the first of `errors[]` (a JSON pointer without its slash). */
  readonly field: string | null;
  readonly detail: string;
  readonly errors: FieldProblem[];
  readonly retryAfterSeconds: number | null;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: unknown, headers?: Headers) {
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const detail = typeof b.detail === 'string' ? b.detail : `HTTP ${status}`;
    super(detail);
    this.status = status;
    this.body = b;
    this.code = typeof b.code === 'string' ? b.code : `http_${status}`;
    this.detail = detail;
    this.errors = Array.isArray(b.errors) ? (b.errors as FieldProblem[]) : [];
    const first = this.errors[0]?.path?.replace(/^\//, '') ?? null;
    this.field = typeof b.field === 'string' ? b.field : first;
    const retry = Number(headers?.get('retry-after'));
    this.retryAfterSeconds = headers?.has('retry-after') && Number.isFinite(retry) ? retry : null;
  }

  /** The message of one field (validation errors and the `field` of other codes). */
  forField(name: string): string | null {
    const e = this.errors.find((x) => x.path.replace(/^\//, '') === name);
    if (e) return e.message ?? e.code;
    return this.field === name ? this.detail : null;
  }
}

/** Network failure (no answer at all): told apart from the API's own refusals. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Awaits an openapi-fetch call: its body when it succeeded, else throws ApiError. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (err) {
    throw new NetworkError(err instanceof Error ? err.message : String(err));
  }
  if (!answer.response.ok) throw new ApiError(answer.response.status, answer.error, answer.response.headers);
  return answer.data as T;
}

/**
 * A call by path for routes the generated schema does not describe (yet): today only
 * PATCH /api/v1/account (the person's name and language). New routes land in client/src/schema.ts
 * with `npm run client:generate`; then use `api` for them.
 */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { ...contextHeaders(method), Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new NetworkError(err instanceof Error ? err.message : String(err));
  }
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new ApiError(res.status, parsed, res.headers);
  return parsed as T;
}
