// One error handler for the whole API: every failure leaves as RFC 9457 problem+json with a
// stable code from domain/errors.ts, the request id, and (for validation) the fields at fault.
// 5xx details are logged, never sent: no stack traces, no SQL. The refusals several writers share
// (an Idempotency-Key in use or reused, an external_id already used, credits over a document's
// total) are mapped here once, so routes only map what is theirs alone.
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/connection.ts';
import { IdempotencyKeyInUse, IdempotencyKeyReused } from '../db/queries/idempotency.ts';
import { DomainValidationError, ERROR_CATALOGUE, type ErrorCode, type FieldError } from '../domain/errors.ts';
import { targetPath } from './request-path.ts';

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      fields?: Record<string, unknown>;
    } = {},
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = ERROR_CATALOGUE[code].status;
  }
}

export function validationError(errors: FieldError[], detail?: string): ApiError {
  return new ApiError(
    'validation_failed',
    detail ?? errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; '),
    {
      errors,
    },
  );
}

export function notFound(what: string, id: string): ApiError {
  return new ApiError('resource_not_found', `No ${what} with id ${id}`);
}

/** Thrown by dependency checks when Redis is unreachable. */
export class RedisUnavailableError extends Error {
  constructor(message = 'Redis is unavailable') {
    super(message);
    this.name = 'RedisUnavailableError';
  }
}

export function problemBody(request: FastifyRequest, err: ApiError): Record<string, unknown> {
  const entry = ERROR_CATALOGUE[err.code];
  return {
    ...(err.extra.fields ?? {}),
    type: `/docs/errors#${err.code}`,
    title: entry.title,
    status: err.status,
    detail: err.detail,
    code: err.code,
    ...(err.extra.errors ? { errors: err.extra.errors } : {}),
    instance: targetPath(request.url),
    request_id: request.id,
  };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.extra.headers ?? {})) reply.header(k, v);
  return reply.code(err.status).type('application/problem+json').send(problemBody(request, err));
}

/** Maps Fastify's own errors (body parsing, limits, schema validation) to catalogue codes. */
function fromFastifyError(err: FastifyError): ApiError | null {
  if (err.validation) {
    return validationError(
      err.validation.map((v) =>
        ajvToFieldError(v as unknown as AjvLikeError, err.validationContext ?? 'body'),
      ),
    );
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The request body is larger than the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as application/json');
    case 'FST_CSRF_INVALID_TOKEN':
    case 'FST_CSRF_MISSING_SECRET':
      return new ApiError('csrf_invalid', 'Send the X-CSRF-Token header with the token of your session');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'Content-Length does not match the body sent');
    default:
      break;
  }
  if (err.statusCode === 400 && err instanceof SyntaxError) {
    return new ApiError('invalid_json', 'The request body is not valid JSON');
  }
  // Any other framework or plugin error with a 4xx status (e.g. @fastify/static refusing a path)
  // is the caller's fault: a 4xx problem, never a 500.
  const status = err.statusCode ?? 0;
  if (status === 404) return new ApiError('route_not_found', 'No such route or file');
  if (status === 405) return new ApiError('method_not_allowed', 'Method not allowed here');
  if (status >= 400 && status < 500) return new ApiError('invalid_request', 'The request was refused');
  return null;
}

interface AjvLikeError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

const KEYWORD_CODES: Record<string, string> = {
  type: 'invalid_type',
  required: 'required',
  additionalProperties: 'unknown_field',
  pattern: 'invalid_format',
  format: 'invalid_format',
  minLength: 'too_short',
  maxLength: 'too_long',
  minItems: 'too_few_items',
  maxItems: 'too_many_items',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  enum: 'invalid_value',
  const: 'invalid_value',
  uniqueItems: 'duplicate_items',
  maxProperties: 'too_many_properties',
  unsafeText: 'invalid_character',
};

export function ajvToFieldError(v: AjvLikeError, context: string): FieldError {
  let path = v.instancePath;
  if (v.keyword === 'required') path += `/${String(v.params.missingProperty)}`;
  if (v.keyword === 'additionalProperties') path += `/${String(v.params.additionalProperty)}`;
  const prefix = context === 'body' ? '' : `${context}:`;
  let message = v.message ?? 'is invalid';
  if (v.keyword === 'additionalProperties') message = 'is not a known field';
  if (v.keyword === 'required') message = 'is required';
  if (v.keyword === 'enum') message = `must be one of ${(v.params.allowedValues as unknown[]).join(', ')}`;
  return { path: `${prefix}${path}`, code: KEYWORD_CODES[v.keyword] ?? 'invalid', message };
}

/**
 * Fastify's `frameworkErrors` option: what fails before routing (a URL that is not valid
 * percent-encoding, a path segment longer than any id) leaves as problem+json like every other
 * error, not as Fastify's own JSON.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let apiError: ApiError;
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    apiError = new ApiError('resource_not_found', 'No resource has an id this long');
  else if (error.code === 'FST_ERR_BAD_URL')
    apiError = new ApiError('invalid_request', 'The URL is not valid percent-encoding');
  else apiError = new ApiError('invalid_request', 'The request could not be routed');
  sendProblem(request, reply, apiError);
}

/**
 * Fastify's `clientErrorHandler`: HTTP that Node's parser refuses before there is a request
 * (headers over 16 KB, a malformed request line, a client too slow to send its headers) is
 * answered as problem+json too, and logged without the raw bytes Node attaches to the error
 * (Fastify's default logs them, Authorization header included).
 */
export function clientErrorHandler(
  this: FastifyInstance,
  err: Error & { code?: string },
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already under way (the request timed out after it was answered): another status
  // line would land inside it, so the connection just ends.
  if ((socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const apiError =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('headers_too_large', 'The request headers exceed 16 KB')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('request_timeout', 'The request was not received in time')
        : new ApiError('invalid_request', 'The request is not valid HTTP');
  this.log.debug({ code: err.code, message: err.message }, 'client error');
  const requestId = `req_${randomBytes(12).toString('base64url')}`;
  const body = JSON.stringify({
    type: `/docs/errors#${apiError.code}`,
    title: ERROR_CATALOGUE[apiError.code].title,
    status: apiError.status,
    detail: apiError.detail,
    code: apiError.code,
    request_id: requestId,
  });
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${apiError.status} ${ERROR_CATALOGUE[apiError.code].title}\r\n` +
        `Content-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy();
}

/** What a write refused for a caller's reason answers, whichever route wrote. */
const CONSTRAINT_ERRORS: Record<string, () => ApiError> = {
  invoices_external_id_key: () =>
    new ApiError('duplicate_external_id', 'external_id is already used by another document'),
  invoices_credited_total_check: () =>
    new ApiError('credit_exceeds_total', "The credits would exceed the document's total"),
};

/** Maps the writers' refusals shared by several routes (idempotency keys, constraints) to problems. */
function fromWriteError(error: unknown): ApiError | null {
  if (error instanceof IdempotencyKeyInUse)
    return new ApiError(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still being processed; retry shortly',
      { headers: { 'retry-after': '1' } },
    );
  if (error instanceof IdempotencyKeyReused)
    return new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request');
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? (CONSTRAINT_ERRORS[constraint]?.() ?? null) : null;
}

/** Any error a request met, as the problem it answers (5xx ones logged). */
function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainValidationError) return validationError(error.errors);
  const write = fromWriteError(error);
  if (write) return write;
  if (isDatabaseUnavailable(error) || error instanceof RedisUnavailableError || isRedisUnavailable(error)) {
    request.log.warn({ err: error }, 'dependency unavailable');
    return new ApiError('service_unavailable', 'A backing service is unavailable; retry shortly', {
      headers: { 'retry-after': '5' },
    });
  }
  const mapped = fromFastifyError(error);
  if (mapped) return mapped;
  request.log.error({ err: error }, 'unhandled error');
  return new ApiError('internal_error', 'An unexpected error occurred; it has been logged');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) =>
    sendProblem(request, reply, toApiError(error, request)),
  );

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      request,
      reply,
      new ApiError('route_not_found', `No route ${request.method} ${targetPath(request.url)}`),
    ),
  );
}

function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: string; message?: string };
  return (
    e?.name === 'MaxRetriesPerRequestError' ||
    /Connection is closed|Stream isn't writeable|ECONNREFUSED 127\.0\.0\.1:6379|Reached the max retries/i.test(
      e?.message ?? '',
    )
  );
}
