// The audit log's one hook: every unsafe request (POST, PUT, PATCH, DELETE) under /api/v1 answered
// 2xx for an authenticated caller of a company becomes one audit event (db/queries/audit.ts):
// who (the key, or the person once people sign in), the action read from the route
// (domain/audit-actions.ts, or the route's `config.audit`), the target (the answer's `id`, else
// the route's id parameter), the address and the request id. Refusals (4xx, 5xx), reads and
// idempotent replays (`Idempotent-Replayed: true`) record nothing; a batch is one event.
//
// The insert runs after the answer has gone (onResponse): it never delays or fails a request.
// Events are gathered for FLUSH_MS and written by one multi-row insert, so a burst of writes costs
// the database one statement per flush, not one per request. A failed insert is logged and
// dropped; events still waiting when the app closes are written first. An event can therefore be
// lost if the process dies between the answer and the flush (see db/README.md, "The audit log").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { recordAuditEvents, type AuditActor, type AuditEventInput } from '../db/queries/audit.ts';

/** How long events wait to share an insert; and how many make one at once. */
const FLUSH_MS = 100;
const FLUSH_AT = 500;
import { auditAction, targetTypeOf, UNSAFE_METHODS } from '../domain/audit-actions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's audit action when the derived one reads badly; false: not recorded. */
    audit?: string | false;
  }
  interface FastifyRequest {
    /** The `id` of the object a write answered with (its audit target). */
    auditTargetId: string | null;
  }
  interface FastifyInstance {
    /** Resolves once every audit insert begun so far has finished (tests, shutdown). */
    auditSettled(): Promise<void>;
  }
}

/**
 * Who made the request, for the audit log: the person when a signed-in person did (their
 * AuthContext's `actor`), else the API key. The only place that reads the caller's identity.
 */
export function auditActorOf(request: FastifyRequest): AuditActor | null {
  const auth = request.auth;
  if (!auth) return null;
  const actor = (auth as { actor?: { type?: string; userId?: number; name?: string } }).actor;
  // A person's name, unless the actor carries it, is looked up by the insert (as a key's is).
  if (actor?.type === 'user')
    return { type: 'user', id: actor.userId ?? null, ...(actor.name ? { name: actor.name } : {}) };
  return auth.keyId === null || auth.keyId === undefined ? null : { type: 'key', id: auth.keyId };
}

/** `clients` → `client`, `branches` → `branch`, `companies` → `company`. */
function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ch|sh|ss|x)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/** The resource acted on: the answer's object, else the route's last parameter. */
function targetOf(request: FastifyRequest): AuditEventInput['target'] {
  const answered = request.auditTargetId;
  const answeredType = answered ? targetTypeOf(answered) : null;
  if (answered && answeredType) return { type: answeredType, id: answered };
  const pattern = request.routeOptions.url ?? '';
  const param = /\/([a-z_]+)\/:([A-Za-z_]+)(?:\/[a-z_]+)?$/.exec(pattern);
  const raw = param ? (request.params as Record<string, string> | undefined)?.[param[2]!] : undefined;
  if (!raw) return null;
  return { type: targetTypeOf(raw) ?? singular(param![1]!), id: raw };
}

/** The audit event of a finished request, or null when it is not one to record. */
export function auditEventOf(request: FastifyRequest, reply: FastifyReply): AuditEventInput | null {
  if (reply.statusCode < 200 || reply.statusCode >= 300) return null;
  if (reply.getHeader('idempotent-replayed') === 'true') return null;
  const pattern = request.routeOptions.url;
  if (!pattern) return null;
  const action = auditAction(request.method, pattern, request.routeOptions.config?.audit);
  if (action === null) return null;
  const actor = auditActorOf(request);
  const companyId = (request.auth as { companyId?: number | null } | null)?.companyId;
  if (!actor || companyId === null || companyId === undefined) return null;
  return {
    companyId,
    livemode: request.auth!.livemode,
    actor,
    action,
    target: targetOf(request),
    ip: request.ip,
    requestId: request.id,
  };
}

/** Records every successful write after its answer (see the header). */
export function registerAudit(app: FastifyInstance, db: Knex): void {
  const pending = new Set<Promise<void>>();
  let waiting: { event: AuditEventInput; log: FastifyRequest['log'] }[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = waiting;
    waiting = [];
    if (batch.length === 0) return;
    const write = recordAuditEvents(
      db,
      batch.map((w) => w.event),
    )
      .catch((err: unknown) => batch[0]!.log.warn({ err, events: batch.length }, 'audit events not recorded'))
      .finally(() => pending.delete(write));
    pending.add(write);
  };
  app.decorateRequest('auditTargetId', null);
  app.decorate('auditSettled', async () => {
    flush();
    await Promise.allSettled([...pending]);
  });
  app.addHook('preSerialization', async (request, _reply, payload) => {
    if (!UNSAFE_METHODS.includes(request.method)) return payload;
    const id = (payload as { id?: unknown } | null)?.id;
    if (typeof id === 'string') request.auditTargetId = id;
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const event = auditEventOf(request, reply);
    if (!event) return;
    waiting.push({ event, log: request.log });
    if (waiting.length >= FLUSH_AT) flush();
    else timer ??= setTimeout(flush, FLUSH_MS);
  });
  app.addHook('onClose', async () => {
    flush();
    await Promise.allSettled([...pending]);
  });
}
