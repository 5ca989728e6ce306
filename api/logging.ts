// What the API's request logs say about a request: Fastify's usual fields, with anything in the
// URL that looks like a secret replaced by [redacted] — query parameters named like one
// (`api_key`, `key`, `token`, `secret`, `password`, `access_token`, `client_secret`, the Hacienda
// callback's `t`, an HMAC that lets its holder prod an invoice's status check …) and, anywhere in
// the URL, values shaped like the service's own secrets (`ik_live_…`, `ik_test_…`, `whsec_…`), so
// a key a client put in the URL by mistake never reaches the logs. Headers and bodies are never
// logged. Values are looked for after percent-decoding (`ik%5Ftest%5F…`, `%2569…` too), and not
// only in the URL: every line the logger writes (the Host header, error messages, any field) goes
// through the same redaction before it leaves the process.
import { pino, type DestinationStream } from 'pino';
import type { FastifyServerOptions } from 'fastify';

/** A request as the logger is handed it (Fastify's request; typed as Node's by the logger options). */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Query parameter names whose value is a credential (compared decoded, any case). */
const SECRET_NAME =
  /^(?:t|key|sig|signature|auth|authorization|credentials?|session|jwt)$|(?:^|[_.-])(?:api[_-]?key|apikey|token|secret|password|passwd|pwd)$/i;
/** The service's own secret formats, wherever they appear (matched on the decoded text). */
const SECRET_VALUE = /(?:ik_(?:live|test)_|whsec_)[0-9A-Za-z_-]*/gi;
/** A line with neither a percent sign nor a secret's prefix needs no closer look. */
const MAY_HOLD_SECRET = /%|ik_|whsec_/i;
const PERCENT = /%[0-9A-Fa-f]{2}/;
/** Layers of percent-encoding undone when looking for secrets (`%255F` is two layers). */
const DECODE_LAYERS = 3;
const REDACTED = '[redacted]';

/**
 * `text` percent-decoded (byte by byte, up to DECODE_LAYERS times) with, for each decoded
 * character, where its raw form starts and ends in `text`.
 */
function decodeWithSpans(text: string): { decoded: string; starts: number[]; ends: number[] } {
  let cur = text;
  let starts = Array.from(text, (_, i) => i);
  let ends = starts.map((i) => i + 1);
  for (let layer = 0; layer < DECODE_LAYERS && PERCENT.test(cur); layer++) {
    let next = '';
    const s: number[] = [];
    const e: number[] = [];
    for (let i = 0; i < cur.length; i++) {
      const hex = cur[i] === '%' ? cur.slice(i + 1, i + 3) : '';
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        next += String.fromCharCode(parseInt(hex, 16));
        s.push(starts[i]!);
        e.push(ends[i + 2]!);
        i += 2;
      } else {
        next += cur[i];
        s.push(starts[i]!);
        e.push(ends[i]!);
      }
    }
    cur = next;
    starts = s;
    ends = e;
  }
  return { decoded: cur, starts, ends };
}

/** Replaces every secret-shaped value in `text`, plain or percent-encoded, with [redacted]. */
export function redactSecrets(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  const { decoded, starts, ends } = decodeWithSpans(text);
  const spans: [number, number][] = [];
  for (const m of decoded.matchAll(SECRET_VALUE))
    spans.push([starts[m.index]!, ends[m.index + m[0].length - 1]!]);
  let out = text;
  for (const [from, to] of spans.reverse()) out = out.slice(0, from) + REDACTED + out.slice(to);
  return out;
}

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
  return redactSecrets(out);
}

function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url ?? ''),
    host: req.host === undefined ? undefined : redactSecrets(req.host),
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** Writes each log line to `dest` with its secrets redacted (whatever field they are in). */
function redactingStream(dest: DestinationStream): DestinationStream {
  return { write: (line: string) => dest.write(redactSecrets(line)) };
}

/**
 * The logger options with the request serializer above (a caller's own serializers win) and
 * every line redacted on its way to the caller's stream (standard output by default).
 */
export function safeLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return logger;
  const options: Exclude<FastifyServerOptions['logger'], boolean | undefined> =
    typeof logger === 'object' ? logger : {};
  const dest = (options.stream as DestinationStream | undefined) ?? pino.destination({ dest: 1, sync: true });
  return {
    ...options,
    stream: redactingStream(dest),
    serializers: { req: serializeRequest, ...options.serializers },
  };
}
