// API keys: creation (secret returned once), lookup by secret hash for authentication,
// rolling (a new secret; older ones expire after a grace period) and revocation.
import type { Knex } from 'knex';
import { generateApiKeySecret, hashApiKeySecret } from '../../domain/api-key-secret.ts';
import { ApiKey } from '../models/index.ts';

export interface KeyWithSecrets {
  id: number;
  companyId: number;
  livemode: boolean;
  name: string;
  scopes: string[];
  /** The key's own requests per second (within the company's); null: the company's only. */
  rateLimitPerSecond: number | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  secrets: { last4: string; expiresAt: Date | null; createdAt: Date }[];
}

export async function createApiKey(
  db: Knex,
  input: {
    companyId: number;
    livemode: boolean;
    name: string;
    scopes: string[];
    rateLimitPerSecond?: number | null;
  },
): Promise<{ key: KeyWithSecrets; secret: string }> {
  const secret = generateApiKeySecret(input.livemode);
  const key = await db.transaction(async (trx) => {
    const [row] = await trx('api_keys')
      .insert({
        companyId: input.companyId,
        livemode: input.livemode,
        name: input.name,
        scopes: input.scopes,
        rateLimitPerSecond: input.rateLimitPerSecond ?? null,
      })
      .returning('*');
    await trx('api_key_secrets').insert({
      keyId: row.id,
      secretHash: hashApiKeySecret(secret),
      last4: secret.slice(-4),
    });
    return row;
  });
  return { key: (await getApiKey(db, input.companyId, input.livemode, key.id))!, secret };
}

export async function getApiKey(
  db: Knex,
  companyId: number,
  livemode: boolean,
  id: number,
): Promise<KeyWithSecrets | undefined> {
  const key = await ApiKey.query(db)
    .findOne({ id, companyId, livemode })
    .withGraphFetched('secrets(ordered)')
    .modifiers({ ordered: (q) => q.select('last4', 'expiresAt', 'createdAt').orderBy('id', 'desc') });
  return key as unknown as KeyWithSecrets | undefined;
}

export async function listApiKeys(
  db: Knex,
  companyId: number,
  livemode: boolean | null,
): Promise<KeyWithSecrets[]> {
  const q = ApiKey.query(db)
    .where({ companyId })
    .orderBy('id', 'desc')
    .withGraphFetched('secrets(ordered)')
    .modifiers({ ordered: (b) => b.select('last4', 'expiresAt', 'createdAt').orderBy('id', 'desc') });
  if (livemode !== null) q.where({ livemode });
  return (await q) as unknown as KeyWithSecrets[];
}

export interface AuthRecord {
  keyId: number;
  companyId: number;
  livemode: boolean;
  scopes: string[];
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  plan: string;
  /** The company's own limit (null: its plan's). */
  rateLimitPerSecond: number | null;
  /** The key's own limit within the company's (null: none). */
  keyRateLimitPerSecond: number | null;
}

export async function findKeyBySecret(db: Knex, secret: string): Promise<AuthRecord | undefined> {
  const row = await db('api_key_secrets as s')
    .join('api_keys as k', 'k.id', 's.key_id')
    .join('companies as c', 'c.id', 'k.company_id')
    .where('s.secret_hash', hashApiKeySecret(secret))
    .first(
      'k.id as keyId',
      'k.company_id',
      'k.livemode',
      'k.scopes',
      'k.revoked_at',
      's.expires_at',
      'k.last_used_at',
      'c.plan',
      'c.rate_limit_per_second',
      'k.rate_limit_per_second as keyRateLimitPerSecond',
    );
  return row as AuthRecord | undefined;
}

/** Records use at most once a minute per key, so authentication adds no write to most requests. */
export async function touchApiKey(db: Knex, keyId: number): Promise<void> {
  await db('api_keys')
    .where({ id: keyId })
    .where((q) =>
      q.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw(`now() - interval '60 seconds'`)),
    )
    .update({ lastUsedAt: db.fn.now() });
}

/** Adds a new secret; every older unexpired secret expires after `graceSeconds`. */
export async function rollApiKey(
  db: Knex,
  key: { id: number; livemode: boolean },
  graceSeconds: number,
): Promise<string> {
  const secret = generateApiKeySecret(key.livemode);
  await db.transaction(async (trx) => {
    await trx('api_keys').where({ id: key.id }).forUpdate().first('id');
    await trx('api_key_secrets')
      .where({ keyId: key.id })
      .where((q) =>
        q
          .whereNull('expires_at')
          .orWhere('expires_at', '>', trx.raw(`now() + make_interval(secs => ?)`, [graceSeconds])),
      )
      .update({ expiresAt: trx.raw(`now() + make_interval(secs => ?)`, [graceSeconds]) });
    await trx('api_key_secrets').insert({
      keyId: key.id,
      secretHash: hashApiKeySecret(secret),
      last4: secret.slice(-4),
    });
    await trx('api_keys').where({ id: key.id }).update({ updatedAt: trx.fn.now() });
  });
  return secret;
}

export async function revokeApiKey(db: Knex, id: number): Promise<void> {
  await db('api_keys')
    .where({ id })
    .whereNull('revoked_at')
    .update({ revokedAt: db.fn.now(), updatedAt: db.fn.now() });
}
