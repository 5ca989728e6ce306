// Idempotency keys (the Idempotency-Key header), shared by every POST that creates something:
// scoped to (company, mode, key), kept 24 hours. Inside the creating transaction a
// transaction-level advisory lock makes concurrent requests with one key wait their turn (or
// fail fast with 409); a finished request's status and body are stored with it and replayed.
import type { Knex } from 'knex';
import { tenantOnly, type Tenant } from './clients.ts';

export interface IdempotencyInput {
  key: string;
  route: string;
  hash: Buffer;
}

export class IdempotencyKeyInUse extends Error {}
export class IdempotencyKeyReused extends Error {}

export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
}

/** Looks up a finished request under an idempotency key (24 h). */
export async function findIdempotent(
  db: Knex,
  tenant: Tenant,
  idem: IdempotencyInput,
): Promise<{ hash: Buffer; route: string; response: StoredResponse } | null> {
  const row = await db('idempotency_keys')
    .where({ ...tenantOnly(tenant), key: idem.key })
    .where('created_at', '>', db.raw(`now() - interval '24 hours'`))
    .first();
  if (!row) return null;
  return {
    hash: row.requestHash,
    route: row.route,
    response: { status: row.responseStatus, body: row.responseBody },
  };
}

/**
 * Takes the key for this transaction: throws IdempotencyKeyInUse while another transaction holds
 * it, IdempotencyKeyReused when it finished with another request, or returns the stored response
 * of the same request (null when the key is new).
 */
export async function lockIdempotencyKey(
  trx: Knex.Transaction,
  tenant: Tenant,
  idem: IdempotencyInput,
): Promise<StoredResponse | null> {
  const res = await trx.raw('select pg_try_advisory_xact_lock(?::int, hashtext(?)) as ok', [
    tenant.companyId % 2_147_483_647,
    `${tenant.livemode ? 'live' : 'test'}:${idem.key}`,
  ]);
  if (!res.rows[0].ok) throw new IdempotencyKeyInUse();
  const done = await findIdempotent(trx, tenant, idem);
  if (!done) return null;
  if (!done.hash.equals(idem.hash) || done.route !== idem.route) throw new IdempotencyKeyReused();
  return done.response;
}

/** The row that keeps a finished request's response under its key. */
function storedRow(tenant: Tenant, idem: IdempotencyInput, response: StoredResponse) {
  return {
    ...tenantOnly(tenant),
    key: idem.key,
    route: idem.route,
    requestHash: idem.hash,
    responseStatus: response.status,
    responseBody: JSON.stringify(response.body),
  };
}

/** Stores the response of a finished request under its key (in the same transaction). */
export async function saveIdempotent(
  trx: Knex.Transaction,
  tenant: Tenant,
  idem: IdempotencyInput,
  response: StoredResponse,
): Promise<void> {
  await trx('idempotency_keys')
    .insert(storedRow(tenant, idem, response))
    .onConflict(['company_id', 'livemode', 'key'])
    .merge();
}

/**
 * Stores the response under its key, the primary key (company, mode, key) deciding: a row of
 * another request still fresh (under 24 h) is never overwritten — IdempotencyKeyInUse is thrown
 * and the caller's transaction rolls back — and an expired one is replaced. So even a request
 * that got past lockIdempotencyKey cannot record a second outcome under one key.
 */
export async function insertIdempotent(
  trx: Knex.Transaction,
  tenant: Tenant,
  idem: IdempotencyInput,
  response: StoredResponse,
): Promise<void> {
  const written = await trx('idempotency_keys')
    .insert(storedRow(tenant, idem, response))
    .onConflict(['company_id', 'livemode', 'key'])
    .merge(['route', 'request_hash', 'response_status', 'response_body', 'created_at'])
    .where('idempotency_keys.created_at', '<=', trx.raw(`now() - interval '24 hours'`))
    .returning('key');
  if (written.length === 0) throw new IdempotencyKeyInUse();
}

/** The answer to a request whose key another transaction still holds. */
export const KEY_IN_USE = {
  status: 409,
  code: 'idempotency_key_in_use',
  detail: 'A request with this key is still being processed',
} as const;

/** The answer to a request whose key finished with another request. */
export const KEY_REUSED = {
  status: 422,
  code: 'idempotency_key_reused',
  detail: 'This idempotency key was used with a different request',
} as const;

/** A finished request's stored row, as the grouped and bulk invoice writers read it. */
export interface StoredKey {
  hash: Buffer;
  route: string;
  status: unknown;
  body: Record<string, unknown> | null;
}

export type StoredDecision =
  { kind: 'reused' } | { kind: 'replayed'; invoiceId: number | null; response: StoredResponse };

/**
 * What a request under a finished key gets: the stored response when it is the same request on
 * the same route (with the invoice id it names), `reused` otherwise.
 */
export function decideStored(stored: StoredKey, idem: IdempotencyInput): StoredDecision {
  if (!stored.hash.equals(idem.hash) || stored.route !== idem.route) return { kind: 'reused' };
  const body = stored.body ?? {};
  const id = typeof body.id === 'string' ? Number(body.id.slice(4)) : null;
  return { kind: 'replayed', invoiceId: id, response: { status: Number(stored.status ?? 201), body } };
}
