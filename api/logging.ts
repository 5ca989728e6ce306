// What the API's request logs say about a request: Fastify's usual fields, with anything in the
// URL that looks like a secret replaced by [redacted] — query parameters named like one
// (`api_key`, `key`, `token`, `secret`, `password`, `access_token`, `client_secret`, the Hacienda
// callback's `t`, an HMAC that lets its holder prod an invoice's status check …) and, anywhere in
// the URL, values shaped like the service's own secrets (`ik_live_…`, `ik_test_…`, `whsec_…`), so
// a key a client put in the URL by mistake never reaches the logs. Headers and bodies are never
// logged.
import type { FastifyServerOptions } from 'fastify';

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

/** Query parameter names whose value is a credential (compared decoded, any case). */
const SECRET_NAME =
  /^(?:t|key|sig|signature|auth|authorization|credentials?|session|jwt)$|(?:^|[_.-])(?:api[_-]?key|apikey|token|secret|password|passwd|pwd)$/i;
/** The service's own secret formats, wherever they appear. */
const SECRET_VALUE = /(?:ik_(?:live|test)_|whsec_)[0-9A-Za-z_-]*/g;
const REDACTED = '[redacted]';

function decoded(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

function redactParam(param: string): string {
  const eq = param.indexOf('=');
  const name = eq < 0 ? param : param.slice(0, eq);
  // `api_key[]`, `token[0]`: the name without an array suffix.
  const bare = decoded(name)
    .trim()
    .replace(/\[[^\]]*\]$/, '');
  return SECRET_NAME.test(bare) ? `${name}=${REDACTED}` : param;
}

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  let out = url;
  if (q >= 0) {
    const hash = url.indexOf('#', q);
    const query = url.slice(q + 1, hash < 0 ? undefined : hash);
    out = `${url.slice(0, q + 1)}${query.split('&').map(redactParam).join('&')}${hash < 0 ? '' : url.slice(hash)}`;
  }
  return out.replace(SECRET_VALUE, REDACTED);
}

function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** The logger options with the request serializer above (a caller's own serializers win). */
export function safeLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return logger;
  const options = typeof logger === 'object' ? logger : {};
  return { ...options, serializers: { req: serializeRequest as never, ...options.serializers } };
}
