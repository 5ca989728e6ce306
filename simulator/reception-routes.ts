// The reception API at both of Hacienda's bases (Hacienda's reception API):
//   /recepcion-sandbox/v1 (realm rut-stag) and /recepcion/v1 (realm rut), each with
//   POST /recepcion        → 202 + Location, 400 + X-Error-Cause (duplicate clave, bad body), 401
//   GET  /recepcion/{clave} → { clave, fecha, ind-estado, respuesta-xml? }, 404 + X-Error-Cause
// Every answer carries X-Ratelimit-*; injected faults (hang, 5xx, 429) come before everything else,
// and a failed POST may still have stored its document (storeOnFailureRate), as in real life. A
// received document may also be lost after its 202 (lostDocumentRate): GET answers 404 for it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorContext } from './context.ts';
import { drawFault, errorCause, hang, injectedRateLimit, serverError } from './faults.ts';
import type { Processor } from './processing.ts';
import { rateHeaders } from './rate-limit.ts';
import type { Realm } from './tokens.ts';
import { validateReception } from './reception-body.ts';

interface Base {
  prefix: string;
  realm: Realm;
  sandbox: boolean;
}

export const BASES: readonly Base[] = [
  { prefix: '/recepcion-sandbox/v1', realm: 'rut-stag', sandbox: true },
  { prefix: '/recepcion/v1', realm: 'rut', sandbox: false },
];

// A whole signed document travels base64-encoded in the JSON body.
const BODY_LIMIT = 20 * 1024 * 1024;

export const storeKey = (scope: string, key: string) => `${scope}:${key}`;

export function registerReceptionRoutes(
  app: FastifyInstance,
  ctx: SimulatorContext,
  processor: Processor,
): void {
  const gates = new WeakMap<FastifyRequest, ReturnType<typeof gate>>();
  const gateOf = (base: Base, request: FastifyRequest, reply: FastifyReply) =>
    gates.get(request) ?? gate(ctx, base, request, reply);

  for (const base of BASES) {
    void app.register(
      async (scope) => {
        scope.setErrorHandler((err: { statusCode?: number; message: string }, _request, reply) =>
          answerError(ctx, err, reply),
        );
        // Before the body is parsed, so even a malformed body is answered with X-Ratelimit-*.
        scope.addHook('onRequest', async (request, reply) => {
          gates.set(request, gate(ctx, base, request, reply));
        });
        scope.post('/recepcion', { bodyLimit: BODY_LIMIT }, (request, reply) => post(base, request, reply));
        scope.get<{ Params: { clave: string } }>('/recepcion/:clave', (request, reply) =>
          get(base, request, reply),
        );
      },
      { prefix: base.prefix },
    );
  }

  async function post(base: Base, request: FastifyRequest, reply: FastifyReply) {
    const { user, window, fault } = gateOf(base, request, reply);
    if (fault === 'rate_limited') return injectedRateLimit(ctx, reply);
    if (fault) {
      // The gateway failed, but did the service behind it store the document?
      if (user && ctx.random.chance(ctx.knobs.storeOnFailureRate))
        accept(ctx, processor, base, request.body, request);
      if (fault === 'timeout') return hang(ctx, request, reply);
      return serverError(ctx, reply);
    }
    const refused = refuse(ctx, base, reply, user, window);
    if (refused) return refused;
    const result = accept(ctx, processor, base, request.body, request);
    if (result.status === 202) return reply.code(202).header('location', result.location).send();
    void reply.code(400).header('x-error-cause', errorCause(result.cause));
    if (result.validation) void reply.header('validation-exception', 'true');
    return reply.send();
  }

  async function get(
    base: Base,
    request: FastifyRequest<{ Params: { clave: string } }>,
    reply: FastifyReply,
  ) {
    const { user, window, fault } = gateOf(base, request, reply);
    if (fault === 'rate_limited') return injectedRateLimit(ctx, reply);
    if (fault === 'timeout') return hang(ctx, request, reply);
    if (fault === 'server_error') return serverError(ctx, reply);
    const refused = refuse(ctx, base, reply, user, window);
    if (refused) return refused;
    const key = request.params.clave;
    const doc = ctx.store.docs.get(storeKey(base.realm, key));
    if (!doc) {
      return reply
        .code(404)
        .header('x-error-cause', errorCause(`No existe el recurso con Clave = [${key}]`))
        .send();
    }
    return reply.code(200).send(await processor.statusBody(doc));
  }
}

/** An error Fastify raised (a bad body, a fault of the simulator): the status with its X-Error-Cause. */
function answerError(
  ctx: SimulatorContext,
  err: { statusCode?: number; message: string },
  reply: FastifyReply,
): void {
  const status = err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
  if (status >= 500) ctx.log.error({ err }, 'simulator error');
  if (status === 400) ctx.counters.badRequests += 1;
  void reply.code(status).header('x-error-cause', errorCause(status < 500 ? err.message : 'Error interno'));
  if (status === 400) void reply.header('validation-exception', 'true');
  void reply.send();
}

/** Authentication, the rate window and the fault draw, common to both operations. */
function gate(ctx: SimulatorContext, base: Base, request: FastifyRequest, reply: FastifyReply) {
  const k = ctx.knobs;
  const header = request.headers.authorization ?? '';
  const token = /^bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
  const check = ctx.tokens.check(token, 'Bearer');
  const user = check.ok && check.claims.realm === base.realm ? check.claims.preferred_username : null;
  const window = ctx.limiter.hit(
    user ? `u:${user}` : `ip:${request.ip}`,
    k.rateLimitPerWindow,
    k.rateLimitWindowMs,
  );
  void reply.headers(rateHeaders(window));
  return { user, window, fault: drawFault(ctx) };
}

/** A request without a valid token (401) or over its rate window (429) is refused; null lets it through. */
function refuse(
  ctx: SimulatorContext,
  base: Base,
  reply: FastifyReply,
  user: string | null,
  window: { allowed: boolean; resetAt: number },
) {
  if (!user) {
    ctx.counters.unauthorized += 1;
    return reply
      .code(401)
      .header('www-authenticate', `Bearer realm="${base.realm}", error="invalid_token"`)
      .send();
  }
  if (!window.allowed) {
    ctx.counters.rateLimited += 1;
    return reply
      .code(429)
      .header('retry-after', String(Math.max(1, Math.ceil((window.resetAt - ctx.now()) / 1000))))
      .send();
  }
  return null;
}

/** Validates and stores a POST body; what the POST would answer. */
function accept(
  ctx: SimulatorContext,
  processor: Processor,
  base: Base,
  body: unknown,
  request: FastifyRequest,
) {
  const v = validateReception(body);
  if (!v.ok) {
    ctx.counters.badRequests += 1;
    return { status: 400, cause: v.cause, validation: true } as const;
  }
  const r = v.request;
  const key = r.consecutivoReceptor ? `${r.clave}-${r.consecutivoReceptor}` : r.clave;
  if (ctx.store.docs.has(storeKey(base.realm, key))) {
    ctx.counters.duplicates += 1;
    return {
      status: 400,
      cause: `El comprobante [${r.clave}] ya fue recibido anteriormente`,
      validation: false,
    } as const;
  }
  const location = `${request.protocol}://${request.host}${base.prefix}/recepcion/${key}`;
  // Received, then lost: the 202 goes out, but the document is never stored or processed.
  if (ctx.knobs.lostDocumentRate > 0 && ctx.random.chance(ctx.knobs.lostDocumentRate)) {
    ctx.counters.lost += 1;
    return { status: 202, location } as const;
  }
  processor.receive({
    scope: base.realm,
    key,
    clave: r.clave,
    sandbox: base.sandbox,
    fecha: r.fecha,
    callbackUrl: r.callbackUrl ?? null,
    emisor: r.emisor,
    ...(r.receptor ? { receptor: r.receptor } : {}),
    ...(r.consecutivoReceptor ? { consecutivoReceptor: r.consecutivoReceptor } : {}),
    xml: r.xml,
  });
  return { status: 202, location } as const;
}
