// One token manager per (company, environment), kept for the life of the process so workers reuse
// sessions instead of logging in for every document. A change of credentials (new username or
// password for the same key) replaces the manager; the old session is left to expire.
import { createHash } from 'node:crypto';
import { createTokenManager } from './token-manager.ts';
import type { TokenManager, TokenManagerOptions } from './token-manager.ts';

export type HaciendaEnvironment = 'sandbox' | 'production';

export interface TokenPoolKey {
  companyId: string;
  environment: HaciendaEnvironment;
}

export interface TokenPool {
  get(key: TokenPoolKey, options: TokenManagerOptions): TokenManager;
  /** Drops a company's managers, e.g. after its credentials were deleted. */
  forget(companyId: string): void;
  readonly size: number;
}

function fingerprint(o: TokenManagerOptions): string {
  return createHash('sha256')
    .update([o.idpUrl, o.clientId, o.username, o.password].join('\u0000'))
    .digest('base64url');
}

export function createTokenPool(): TokenPool {
  const managers = new Map<string, { fp: string; manager: TokenManager }>();
  return {
    get(key, options) {
      const id = `${key.companyId}\u0000${key.environment}`;
      const fp = fingerprint(options);
      const existing = managers.get(id);
      if (existing && existing.fp === fp) return existing.manager;
      const manager = createTokenManager(options);
      managers.set(id, { fp, manager });
      return manager;
    },
    forget(companyId) {
      for (const id of managers.keys()) if (id.startsWith(`${companyId}\u0000`)) managers.delete(id);
    },
    get size() {
      return managers.size;
    },
  };
}
