// A bounded, per-process memory of API key secrets seen recently, as SHA-256 digests only (never
// the secrets), each remembered for `ttlMs`; past `maxEntries` the oldest entry goes. The key
// lookup keeps two (api/key-lookup.ts):
// - secrets that matched no key (30 s): a client repeating a wrong key — a revoked integration,
//   a typo in a config — costs one database lookup per 30 s instead of one per request; dropped
//   whenever a key is created, rolled or revoked anywhere, so a new key is never refused for
//   having once been unknown;
// - secrets that authenticated (10 min): their lookups skip the client address's
//   failed-authentication budget, so a working integration behind the same address (a NAT) as a
//   key-guessing client keeps working when its cached key entry expires. Only a secret that
//   really authenticated gets in, so guessing cannot use it.
import { hashApiKeySecret } from '../domain/api-key-secret.ts';

export class SecretMemory {
  /** Digest → when it is forgotten (ms since the epoch); oldest first. */
  private readonly entries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  has(secret: string): boolean {
    const digest = hashApiKeySecret(secret).toString('base64');
    const until = this.entries.get(digest);
    if (until === undefined) return false;
    if (until <= Date.now()) {
      this.entries.delete(digest);
      return false;
    }
    return true;
  }

  add(secret: string): void {
    const digest = hashApiKeySecret(secret).toString('base64');
    this.entries.delete(digest); // re-inserted as the newest
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(digest, Date.now() + this.ttlMs);
  }

  delete(secret: string): void {
    this.entries.delete(hashApiKeySecret(secret).toString('base64'));
  }

  clear(): void {
    this.entries.clear();
  }
}
