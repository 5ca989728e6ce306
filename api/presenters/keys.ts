// An API key with its secrets' metadata → the public `api_key` object (schema KeyObject,
// api/schemas/keys.ts): never a secret, only its last four characters.
import type { Static } from 'typebox';
import type { KeyWithSecrets } from '../../db/queries/api-keys.ts';
import { redactedKey } from '../../domain/api-key-secret.ts';
import { formatId } from '../../domain/ids.ts';
import type { KeyObject } from '../schemas/keys.ts';

export type KeyJson = Static<typeof KeyObject>;

export function keyObject(k: KeyWithSecrets): KeyJson {
  const current = k.secrets[0];
  return {
    id: formatId('apiKey', k.id),
    object: 'api_key' as const,
    name: k.name,
    scopes: k.scopes,
    livemode: k.livemode,
    rate_limit_per_second: k.rateLimitPerSecond ?? null,
    redacted: redactedKey(k.livemode, current?.last4 ?? '????'),
    secrets: k.secrets.map((s) => ({
      last4: s.last4,
      created_at: s.createdAt.toISOString(),
      expires_at: s.expiresAt ? s.expiresAt.toISOString() : null,
    })),
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}
