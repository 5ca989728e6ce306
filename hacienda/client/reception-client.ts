// Client of Hacienda's reception API: POST /recepcion and GET /recepcion/{clave}.
// How each answer ends:
// - POST 2xx → received (validation pending; never an acceptance).
// - POST 400 "ya fue recibido anteriormente" / "ya existe en nuestras bases de datos" → received
//   (a repeat of a clave Hacienda already has is not a failure: go poll it).
// - POST other 4xx → HaciendaRejectedError (permanent) with X-Error-Cause.
// - POST 5xx, timeout, broken connection → HaciendaUnknownOutcomeError: not retried here; the
//   caller polls the same clave before anything is re-sent.
// - POST whose connection could not be made (refused, unresolved, connect timeout: nothing was
//   sent) → retried a few times in process (p-retry), then HaciendaUnavailableError.
// - 401 → the token is renewed once and the request retried.
// - 429 → wait as told (Retry-After, else X-Ratelimit-Reset) and retry, a bounded number of times;
//   a spent window (X-Ratelimit-Remaining 0) also delays the next request until the reset.
// - GET 5xx/timeouts are retried a few times in process (a GET is safe; p-retry), then
//   HaciendaUnavailableError.
// - GET 404 → { found: false }: normal for a moment right after a POST.
import {
  HaciendaAuthError,
  HaciendaRejectedError,
  HaciendaUnavailableError,
  HaciendaUnknownOutcomeError,
} from './errors.ts';
import { fetchTransport, readRateLimit, systemClock, TransportFailure, waitFromHeaders } from './http.ts';
import type { Clock, FetchLike, RateLimitInfo, ReadResponse, Transport } from './http.ts';
import { nodeTransport } from './node-transport.ts';
import { withRetries } from './retry.ts';
import type { TokenManager } from './token-manager.ts';

export interface Identification {
  tipoIdentificacion: string;
  numeroIdentificacion: string;
}

export interface SubmitDocument {
  clave: string;
  /** RFC 3339 date-time, the same instant as FechaEmision. */
  fecha: string;
  emisor: Identification;
  receptor?: Identification;
  callbackUrl?: string;
  /** Only for a MensajeReceptor: the receptor's own 20-digit consecutivo. */
  consecutivoReceptor?: string;
  /** Base64 of the exact signed XML bytes. */
  comprobanteXml: string;
}

export interface SubmitResult {
  outcome: 'received';
  /** True when Hacienda said it already had this clave. */
  duplicate: boolean;
  status: number;
  location: string | null;
  errorCause: string | null;
}

export type ReceptionState = 'recibido' | 'procesando' | 'aceptado' | 'rechazado' | 'error';
export const TERMINAL_STATES: ReadonlySet<ReceptionState> = new Set(['aceptado', 'rechazado', 'error']);

export type StatusResult =
  | {
      found: true;
      clave: string;
      state: ReceptionState;
      terminal: boolean;
      fecha: string | null;
      /** The decoded respuesta-xml (a signed MensajeHacienda), once Hacienda has processed it. */
      responseXml?: string;
      callbackUrl?: string;
    }
  | { found: false; clave: string; errorCause: string | null };

export interface ReceptionClientOptions {
  /** Base URL without the trailing /recepcion, e.g. https://api.comprobanteselectronicos.go.cr/recepcion/v1 */
  apiUrl: string;
  tokens: Pick<TokenManager, 'getAccessToken' | 'invalidate'>;
  /** Default: Node's http/https over keep-alive connections. */
  transport?: Transport;
  /** A fetch-like function to send with instead (tests); ignored when `transport` is given. */
  fetch?: FetchLike;
  clock?: Clock;
  /** Default 30 s: a POST carries the whole document and Hacienda can be slow. */
  postTimeoutMs?: number;
  /** Default 15 s. */
  getTimeoutMs?: number;
  /** 429 retries per call. Default 3. */
  maxRateLimitRetries?: number;
  /** Longest single wait we accept in process; longer waits surface as retryAfterMs. Default 60 s. */
  maxRateLimitWaitMs?: number;
  /** In-process retries of a GET after a 5xx/timeout. Default 2. */
  statusRetries?: number;
  /** Base delay between those retries (doubled each time). Default 500 ms. */
  statusRetryDelayMs?: number;
  /** In-process retries of a POST whose connection could not be made (nothing sent). Default 2. */
  connectRetries?: number;
  /** Base delay between those retries (doubled each time). Default 500 ms. */
  connectRetryDelayMs?: number;
}

export interface ReceptionClient {
  submit(doc: SubmitDocument): Promise<SubmitResult>;
  status(clave: string): Promise<StatusResult>;
  /** The last rate-limit headers seen. */
  rateLimit(): RateLimitInfo | null;
}

const DUPLICATE_CAUSE =
  /ya fue recibid[oa]|ya existe en nuestras bases de datos|ya existe en la base de datos/i;
// Used when a 429 carries neither Retry-After nor X-Ratelimit-Reset.
const DEFAULT_429_WAIT_MS = 1_000;
const STATES = new Set<string>(['recibido', 'procesando', 'aceptado', 'rechazado', 'error']);

export function createReceptionClient(options: ReceptionClientOptions): ReceptionClient {
  const transport = options.transport ?? (options.fetch ? fetchTransport(options.fetch) : nodeTransport);
  const clock = options.clock ?? systemClock;
  const base = options.apiUrl.replace(/\/+$/, '');
  const postTimeoutMs = options.postTimeoutMs ?? 30_000;
  const getTimeoutMs = options.getTimeoutMs ?? 15_000;
  const statusRetries = options.statusRetries ?? 2;
  const statusRetryDelay = options.statusRetryDelayMs ?? 500;
  const connectRetries = options.connectRetries ?? 2;
  const connectRetryDelay = options.connectRetryDelayMs ?? 500;
  const caller = createCaller({
    transport,
    clock,
    tokens: options.tokens,
    max429: options.maxRateLimitRetries ?? 3,
    maxWait: options.maxRateLimitWaitMs ?? 60_000,
  });

  async function submit(doc: SubmitDocument): Promise<SubmitResult> {
    const payload = submitPayload(doc);
    let res: ReadResponse;
    try {
      // Only a connection that was never made is tried again: the document did not leave. Anything
      // else (timeout, reset, 5xx) may have reached Hacienda and is not repeated here.
      res = await withRetries(
        () => caller.call('POST', `${base}/recepcion`, payload, postTimeoutMs),
        (err) => err instanceof TransportFailure && err.kind === 'refused',
        { retries: connectRetries, baseDelayMs: connectRetryDelay, clock },
      );
    } catch (err) {
      throw submitFailure(doc, err);
    }
    return submitOutcome(doc, res);
  }

  async function status(clave: string): Promise<StatusResult> {
    const url = `${base}/recepcion/${encodeURIComponent(clave)}`;
    let res: ReadResponse;
    try {
      res = await withRetries(
        async () => {
          const r = await caller.call('GET', url, undefined, getTimeoutMs);
          if (r.status >= 500) throw new ServerErrorAnswer(r.status);
          return r;
        },
        (err) => err instanceof TransportFailure || err instanceof ServerErrorAnswer,
        { retries: statusRetries, baseDelayMs: statusRetryDelay, clock },
      );
    } catch (err) {
      if (err instanceof ServerErrorAnswer)
        throw new HaciendaUnavailableError(`GET ${clave}: ${err.status}`, 'server_error', err.status);
      if (!(err instanceof TransportFailure)) throw err;
      const reason = err.kind === 'refused' ? 'connection_refused' : err.kind;
      throw new HaciendaUnavailableError(`GET ${clave}: ${err.kind}`, reason, null, null, { cause: err });
    }
    if (res.status === 404) return { found: false, clave, errorCause: res.headers.get('x-error-cause') };
    if (res.status !== 200) {
      const cause = res.headers.get('x-error-cause');
      throw new HaciendaRejectedError(`GET ${clave}: ${res.status}`, res.status, cause, false);
    }
    return parseStatus(clave, res.text);
  }

  return { submit, status, rateLimit: caller.rateLimit };
}

interface CallerOptions {
  transport: Transport;
  clock: Clock;
  tokens: ReceptionClientOptions['tokens'];
  /** 429 retries per call. */
  max429: number;
  /** Longest single wait accepted in process. */
  maxWait: number;
}

/**
 * Sends the client's requests with a bearer token, keeping the last rate-limit headers seen: a 401
 * renews the token once, a 429 waits as told (bounded), a spent window paces the next request.
 */
function createCaller(o: CallerOptions) {
  let lastRate: RateLimitInfo | null = null;

  /** Sends one logical request: handles 401 (once) and 429 (bounded). Transport errors propagate. */
  async function call(method: 'GET' | 'POST', url: string, body: string | undefined, timeoutMs: number) {
    let renewed = false;
    let limited = 0;
    for (;;) {
      await paceForWindow();
      const token = await o.tokens.getAccessToken();
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await o.transport(url, { method, headers, body }, timeoutMs);
      lastRate = readRateLimit(res.headers) ?? lastRate;
      if (res.status === 401) {
        if (renewed) {
          throw new HaciendaAuthError(
            `Hacienda refused a freshly issued token (${method} ${url})`,
            401,
            null,
            res.headers.get('x-error-cause'),
          );
        }
        renewed = true;
        o.tokens.invalidate(token);
        continue;
      }
      if (res.status === 429) {
        const wait = waitFromHeaders(res.headers, o.clock.now()) ?? DEFAULT_429_WAIT_MS;
        if (limited >= o.max429 || wait > o.maxWait) {
          throw new HaciendaUnavailableError(
            `Hacienda rate limit (${method} ${url})`,
            'rate_limited',
            429,
            wait,
          );
        }
        limited += 1;
        await o.clock.sleep(wait);
        lastRate = null; // waited as told; no further pacing on this answer's headers
        continue;
      }
      return res;
    }
  }

  /** When the last answer spent the window, wait for its reset (bounded) before the next request. */
  async function paceForWindow() {
    if (lastRate?.remaining !== 0 || lastRate.resetAt === null) return;
    const wait = lastRate.resetAt - o.clock.now();
    if (wait > 0) await o.clock.sleep(Math.min(wait, o.maxWait));
    lastRate = null;
  }

  return { call, rateLimit: (): RateLimitInfo | null => lastRate };
}

/** The JSON body of POST /recepcion. */
function submitPayload(doc: SubmitDocument): string {
  return JSON.stringify({
    clave: doc.clave,
    fecha: doc.fecha,
    emisor: doc.emisor,
    ...(doc.receptor ? { receptor: doc.receptor } : {}),
    ...(doc.callbackUrl ? { callbackUrl: doc.callbackUrl } : {}),
    ...(doc.consecutivoReceptor ? { consecutivoReceptor: doc.consecutivoReceptor } : {}),
    comprobanteXml: doc.comprobanteXml,
  });
}

/** The error a POST that got no answer ends with: unavailable when nothing was sent, else outcome unknown. */
function submitFailure(doc: SubmitDocument, err: unknown): unknown {
  if (!(err instanceof TransportFailure)) return err;
  if (err.kind === 'refused') {
    return new HaciendaUnavailableError('Hacienda unreachable', 'connection_refused', null, null, {
      cause: err,
    });
  }
  return new HaciendaUnknownOutcomeError(
    `POST ${doc.clave}: ${err.kind}; outcome unknown, poll before resending`,
    err.kind,
    null,
    { cause: err },
  );
}

/** What Hacienda's answer to a POST means: received (perhaps a duplicate), or the error to throw. */
function submitOutcome(doc: SubmitDocument, res: ReadResponse): SubmitResult {
  const cause = res.headers.get('x-error-cause');
  const location = res.headers.get('location');
  if (res.status >= 200 && res.status < 300) {
    return { outcome: 'received', duplicate: false, status: res.status, location, errorCause: null };
  }
  if (res.status === 400 && cause && DUPLICATE_CAUSE.test(cause)) {
    return { outcome: 'received', duplicate: true, status: 400, location, errorCause: cause };
  }
  if (res.status >= 500) {
    throw new HaciendaUnknownOutcomeError(
      `POST ${doc.clave}: Hacienda answered ${res.status}; outcome unknown, poll before resending`,
      'server_error',
      res.status,
    );
  }
  throw new HaciendaRejectedError(
    `POST ${doc.clave}: Hacienda answered ${res.status}${cause ? `: ${cause}` : ''}`,
    res.status,
    cause,
    res.headers.get('validation-exception') !== null,
  );
}

/** A 5xx answer to a GET, while it may still be retried. */
class ServerErrorAnswer extends Error {
  constructor(readonly status: number) {
    super(`server answered ${status}`);
  }
}

function parseStatus(clave: string, text: string): StatusResult {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new HaciendaUnavailableError(`GET ${clave}: answer is not JSON`, 'server_error', 200);
  }
  // The published description says indEstado/respuestaXml; the real service sends hyphenated keys.
  const rawState = body['ind-estado'] ?? body.indEstado;
  const state = typeof rawState === 'string' ? rawState.toLowerCase() : '';
  if (!STATES.has(state)) {
    throw new HaciendaUnavailableError(
      `GET ${clave}: unknown ind-estado "${String(rawState)}"`,
      'server_error',
      200,
    );
  }
  const xml = body['respuesta-xml'] ?? body.respuestaXml;
  const fecha = typeof body.fecha === 'string' ? body.fecha : null;
  const callbackUrl = typeof body.callbackUrl === 'string' ? body.callbackUrl : undefined;
  const s = state as ReceptionState;
  return {
    found: true,
    clave: typeof body.clave === 'string' ? body.clave : clave,
    state: s,
    terminal: TERMINAL_STATES.has(s),
    fecha,
    ...(typeof xml === 'string' && xml !== ''
      ? { responseXml: Buffer.from(xml, 'base64').toString('utf8') }
      : {}),
    ...(callbackUrl ? { callbackUrl } : {}),
  };
}
