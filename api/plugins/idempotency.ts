// The Idempotency-Key header of every write route, handled in one place. A route opts in with
// `config: { idempotency: … }`; before its handler runs (after authentication and validation) the
// key is read — at most 255 visible characters, else 422 — into `request.idempotency`, with the
// request's fingerprint: a SHA-256 of the route (its method and path with the caller's ids, as
// `POST /api/v1/invoices/inv_…/payments`) and the body with its keys sorted, so the same JSON in
// another key order is the same request. Keys are scoped to the company and mode and kept 24
// hours (db/queries/idempotency.ts).
//
// A finished request under the key is answered at once, before any other check: the same status
// and body, with `Idempotent-Replayed: true`; another request under it is 422
// idempotency_key_reused. Routes that look the key up in their own transaction (the invoice
// create's group commit, a batch) say `lookup: 'handler'` and answer with `sendReplay`. While
// another request holds the key the writer throws IdempotencyKeyInUse, which the error handler
// answers 409 idempotency_key_in_use with Retry-After: 1 (api/errors.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import {
  findIdempotent,
  IdempotencyKeyReused,
  type IdempotencyInput,
  type StoredResponse,
} from '../../db/queries/idempotency.ts';
import { requestFingerprint } from '../../domain/request-fingerprint.ts';
import { tenantOf } from '../auth.ts';
import { withPublicTotals } from '../presenters/invoices.ts';
import { validationError } from '../errors.ts';

export interface IdempotencyConfig {
  /**
   * `first` (the default): a finished request under the key is answered before the handler runs.
   * `handler`: the handler looks the key up itself, in the transaction that writes.
   */
  lookup?: 'first' | 'handler';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honours Idempotency-Key (api/plugins/idempotency.ts). */
    idempotency?: IdempotencyConfig;
  }
  interface FastifyRequest {
    /** The request's Idempotency-Key and fingerprint; null without the header. */
    idempotency: IdempotencyInput | null;
  }
}

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** The fingerprint's route: the method and the route's path with the request's parameters in it. */
function fingerprintRoute(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, string>;
  const path = request.routeOptions.url!.replace(/:([A-Za-z_]+)/g, (_m, name: string) => params[name] ?? '');
  return `${request.method} ${path}`;
}

/** Reads the Idempotency-Key header of a request (null without one; 422 when malformed). */
export function idempotencyOf(
  request: FastifyRequest,
  route = fingerprintRoute(request),
): IdempotencyInput | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw[0]! : raw;
  if (!KEY_RE.test(key)) {
    throw validationError([
      {
        path: 'header:/idempotency-key',
        code: 'invalid_format',
        message: 'must be 1 to 255 visible ASCII characters',
      },
    ]);
  }
  return { key, route, hash: requestFingerprint(route, request.body) };
}

/**
 * The stored answer of a finished request under the request's key: null when there is none (or
 * no key); IdempotencyKeyReused when it finished with another request.
 */
export async function findStoredAnswer(db: Knex, request: FastifyRequest): Promise<StoredResponse | null> {
  const idem = request.idempotency;
  if (!idem) return null;
  const done = await findIdempotent(db, tenantOf(request), idem);
  if (!done) return null;
  if (!done.hash.equals(idem.hash) || done.route !== idem.route) throw new IdempotencyKeyReused();
  return done.response;
}

/** Answers a repeated request with the stored status and body (an invoice's totals as shown now). */
export function sendReplay(reply: FastifyReply, stored: StoredResponse): FastifyReply {
  return reply.code(stored.status).header('idempotent-replayed', 'true').send(withPublicTotals(stored.body));
}

/** Reads the key of every route that opts in, and replays finished requests before their handlers. */
export function registerIdempotency(app: FastifyInstance, db: Knex): void {
  app.decorateRequest('idempotency', null);
  app.addHook('preHandler', async (request, reply) => {
    const config = request.routeOptions.config.idempotency;
    if (!config) return;
    request.idempotency = idempotencyOf(request);
    if (config.lookup === 'handler') return;
    const stored = await findStoredAnswer(db, request);
    if (stored) return sendReplay(reply, stored);
  });
}
