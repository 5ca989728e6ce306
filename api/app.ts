// The API application factory. It never listens and never reads the environment: server.ts
// (and tests) pass everything in. Registers validation, authentication, error handling,
// security headers and every route module.
import { randomBytes } from 'node:crypto';
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { Scope } from '../domain/scopes.ts';
import type { AppDeps } from './deps.ts';
import { registerAuth } from './auth.ts';
import { registerCsrfCheck, registerSessions } from './sessions.ts';
import { registerAuthorizationGuard } from './authorization-header.ts';
import { KeyLookup } from './key-lookup.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './errors.ts';
import { safeLogger } from './logging.ts';
import { registerValidation } from './validation.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { isApiRequest } from './request-path.ts';
import { httpServerOptions, registerConnectionLimits } from './http-limits.ts';
import { registerInvoiceWaits } from './invoice-waits.ts';
import { registerTracing } from './tracing.ts';
import healthRoutes from './routes/health.ts';
import keyRoutes from './routes/keys/index.ts';
import companyRoutes from './routes/company/index.ts';
import createClientRoute from './routes/clients/create.ts';
import readClientRoutes from './routes/clients/read.ts';
import updateClientRoutes from './routes/clients/update.ts';
import serviceRoutes from './routes/services/index.ts';
import updateServiceRoutes from './routes/services/update.ts';
import cabysRoutes from './routes/cabys/index.ts';
import createInvoiceRoute from './routes/invoices/create.ts';
import previewInvoiceRoute from './routes/invoices/preview.ts';
import readInvoiceRoutes from './routes/invoices/read.ts';
import noteRoutes from './routes/invoices/notes.ts';
import externalCreditNoteRoute from './routes/credit-notes/create.ts';
import invoicePdfRoute from './routes/invoices/pdf.ts';
import invoiceEmailRoute from './routes/invoices/email.ts';
import sendInvoiceRoute from './routes/invoices/send.ts';
import retryInvoiceRoute from './routes/invoices/retry.ts';
import batchRoutes from './routes/invoices/batch.ts';
import haciendaCallbackRoute from './routes/hacienda-callback.ts';
import createEndpointRoutes from './routes/webhooks/create.ts';
import manageEndpointRoutes from './routes/webhooks/manage.ts';
import deliveryRoutes from './routes/webhooks/deliveries.ts';
import eventRoutes from './routes/events/index.ts';
import paymentRoutes from './routes/payments/index.ts';
import { registerAdminAuth } from './plugins/admin-auth.ts';
import { registerIdempotency } from './plugins/idempotency.ts';
import { registerAudit } from './audit.ts';
import { registerIssuingPolicy } from './issuing-policy.ts';
import { registerBullBoard } from './plugins/bull-board.ts';
import { registerRateLimit } from './rate-limit.ts';
import { createUsageRecorder, registerUsage } from './usage/recorder.ts';
import { observedQueueNames, registerMetrics } from './metrics.ts';
import { registerOpenApi } from './openapi.ts';
import usageRoutes from './routes/usage/index.ts';
import dashboardRoute from './routes/dashboard.ts';
import invoiceBrowserRoutes from './routes/invoice-browser.ts';
import invoiceTimelineRoute from './routes/invoices/timeline.ts';
import createReceivedDocumentRoute from './routes/received-documents/create.ts';
import readReceivedDocumentRoutes from './routes/received-documents/read.ts';
import answerReceivedDocumentRoute from './routes/received-documents/answer.ts';
import publicDataRoutes from './routes/public-data/index.ts';
import reportRoutes from './routes/reports/index.ts';
import auditRoutes from './routes/audit/index.ts';
import companyProfileRoute from './routes/company/profile.ts';
import webAppRoutes from './routes/web-app.ts';
import companyCredentialRoutes from './routes/company/credentials.ts';
import companyLogoRoutes from './routes/company/logo.ts';
import companyBranchRoutes from './routes/company/branches.ts';
import companyGoLiveRoutes from './routes/company/go-live.ts';
import signUpRoutes from './routes/account/sign-up.ts';
import passwordRoutes from './routes/account/password.ts';
import securityRoutes from './routes/account/security.ts';
import sessionRoutes from './routes/session/index.ts';
import createCompanyRoute from './routes/companies/create.ts';
import memberRoutes from './routes/members/index.ts';
import acceptInvitationRoute from './routes/account/invitations.ts';
import { lazySerializers } from './lazy-serializers.ts';

export type { AppDeps } from './deps.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** Largest accepted request body, in bytes. */
  bodyLimit?: number;
}

const REQUEST_ID_RE = /^[A-Za-z0-9_.:-]{8,64}$/;

/** 12 random bytes per generated request id, taken from a pool filled 256 ids at a time. */
const ID_BYTES = 12;
let idPool = Buffer.alloc(0);
let idAt = 0;
function newRequestId(): string {
  if (idAt + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 256);
    idAt = 0;
  }
  idAt += ID_BYTES;
  return `req_${idPool.toString('base64url', idAt - ID_BYTES, idAt)}`;
}

/** One registered route and what it asks of a caller (tests derive their route matrices from it). */
export interface RouteEntry {
  method: string;
  url: string;
  scope?: Scope;
  anyScope?: Scope[];
  public: boolean;
  /** For a signed-in person, no company (keys are refused). */
  person: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered on this app (HEAD twins and plugin routes included). */
    routeTable(): RouteEntry[];
    /** Builds the response serializers no answer has needed yet (api/lazy-serializers.ts). */
    warmSerializers(): Promise<number>;
  }
}

/** Headers on every answer: no sniffing, no framing, no referrer, and no content for JSON. */
function securityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  if (isApiRequest(request)) reply.header('cache-control', 'no-store');
  // HTML pages set their own policy (the dashboard's nonce CSP, Swagger UI's); anything else is
  // data that must never run or be framed.
  const type = String(reply.getHeader('content-type') ?? '');
  if (!reply.hasHeader('content-security-policy') && !type.startsWith('text/html'))
    reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
}

/** The Fastify instance with the server options: HTTP limits, logging, request ids, problem errors. */
function createFastify(deps: AppDeps, options: AppOptions): FastifyInstance {
  const serializers = lazySerializers();
  const app = Fastify({
    ...httpServerOptions(deps.config.http),
    logger: safeLogger(options.logger ?? { level: deps.config.logLevel }),
    bodyLimit: options.bodyLimit ?? 1_048_576,
    // A caller's Request-Id is kept (so integrators can correlate); otherwise one is generated.
    genReqId: (req) => {
      const given = req.headers['request-id'];
      if (typeof given === 'string' && REQUEST_ID_RE.test(given)) return given;
      return newRequestId();
    },
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => {
      securityHeaders(request, reply);
      frameworkErrors(error, request, reply);
    },
    schemaController: { compilersFactory: { buildSerializer: serializers.buildSerializer } },
  });
  app.decorate('warmSerializers', () => serializers.warm());
  return app;
}

/** Keeps every route as it is registered, for `app.routeTable()`. */
function recordRouteTable(app: FastifyInstance): void {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat())
      routes.push({
        method,
        url: r.url,
        scope: r.config?.scope,
        anyScope: r.config?.anyScope,
        public: Boolean(r.config?.public),
        person: Boolean(r.config?.person),
      });
  });
  app.decorate('routeTable', () => routes.map((r) => ({ ...r })));
}

/**
 * API keys: looked up (cached, invalidated across processes) and checked on every request; or the
 * session cookie of a person (with its CSRF token on unsafe methods).
 */
async function registerKeys(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const keys = new KeyLookup({
    db: deps.db,
    redis: deps.redis,
    queuePrefix: deps.config.queuePrefix,
    failureLimit: deps.config.fairness.authFailuresPerWindow,
    failureWindowSeconds: deps.config.fairness.authFailureWindowSeconds,
    onRedisError: (err) => app.log.debug({ err }, 'failed-authentication count kept locally'),
  });
  const unfollow = await keys.cache.follow(deps.redis, deps.config.queuePrefix, (err) =>
    app.log.warn({ err }, 'key cache subscription error'),
  );
  app.addHook('onClose', async () => unfollow());
  app.decorate('keyLookup', keys);
  registerAuthorizationGuard(app);
  await registerSessions(app);
  registerAuth(app, deps.db, keys);
  registerCsrfCheck(app);
}

/** Everything around the routes, in the order requests meet it. */
async function registerCeremony(app: FastifyInstance, deps: AppDeps) {
  registerConnectionLimits(app, deps.config.http);
  registerTracing(app);
  recordRouteTable(app);
  // The API speaks JSON only; any other body type is 415.
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);
  registerValidation(app);
  registerErrorHandling(app);
  await registerKeys(app, deps);
  registerInvoiceWaits(app, {
    databaseUrl: deps.config.databaseUrl,
    maxPerCompany: deps.config.fairness.waitersPerCompany,
  });
  // Rate limits, usage counting and metrics (after auth: they work per key).
  registerRateLimit(app, { redis: deps.redis, queuePrefix: deps.config.queuePrefix });
  const usage = createUsageRecorder({ ...deps, queuePrefix: deps.config.queuePrefix, log: app.log });
  registerUsage(app, usage, deps.config.usageFlushMs);
  // Admin credentials for /metrics and Bull Board.
  const requireAdmin = await registerAdminAuth(app, deps.config.admin);
  registerMetrics(app, { ...deps, queueNames: observedQueueNames(deps.adminQueues), requireAdmin });
  await registerOpenApi(app);
  // What write routes share: who may issue, and the Idempotency-Key.
  registerIssuingPolicy(app, deps.db);
  registerIdempotency(app, deps.db);
  // Every successful write becomes an audit event, recorded after its answer.
  registerAudit(app, deps.db);

  // A POST without a body means "no options": validate it as an empty object.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && (request.method === 'POST' || request.method === 'PUT'))
      request.body = {};
  });
  app.addHook('onSend', async (request, reply, payload) => {
    securityHeaders(request, reply);
    return payload;
  });
  return { usage, requireAdmin };
}

/** Every route module of the API, each given the app's dependencies. */
const ROUTES: FastifyPluginAsync<AppDeps>[] = [
  healthRoutes,
  keyRoutes,
  companyRoutes,
  createClientRoute,
  updateClientRoutes,
  readClientRoutes,
  serviceRoutes,
  updateServiceRoutes,
  cabysRoutes,
  createInvoiceRoute,
  previewInvoiceRoute,
  readInvoiceRoutes,
  noteRoutes,
  externalCreditNoteRoute,
  invoicePdfRoute,
  invoiceEmailRoute,
  invoiceTimelineRoute,
  sendInvoiceRoute,
  retryInvoiceRoute,
  batchRoutes,
  haciendaCallbackRoute,
  createEndpointRoutes,
  manageEndpointRoutes,
  deliveryRoutes,
  eventRoutes,
  paymentRoutes,
  createReceivedDocumentRoute,
  readReceivedDocumentRoutes,
  answerReceivedDocumentRoute,
  publicDataRoutes,
  reportRoutes,
  auditRoutes,
  companyProfileRoute,
  companyCredentialRoutes,
  companyLogoRoutes,
  companyBranchRoutes,
  companyGoLiveRoutes,
  signUpRoutes,
  passwordRoutes,
  securityRoutes,
  sessionRoutes,
  createCompanyRoute,
  memberRoutes,
  acceptInvitationRoute,
];

export async function buildApp(deps: AppDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = createFastify(deps, options);
  const { usage, requireAdmin } = await registerCeremony(app, deps);
  for (const routes of ROUTES) await app.register(routes, deps);
  await app.register(usageRoutes, { ...deps, usage });
  await app.register(dashboardRoute);
  await app.register(invoiceBrowserRoutes);
  await app.register(webAppRoutes);
  if (deps.adminQueues?.length) await registerBullBoard(app, deps.config, deps.adminQueues, requireAdmin);
  return app;
}
