// TOTP (RFC 6238) for two-step sign-in: SHA-1, 6 digits, 30-second steps, one step of drift
// either way. The secret is sealed with SECRETS_KEY (hacienda/secret-box.ts) like every stored secret.
import { Secret, TOTP } from 'otpauth';
import { open, seal } from '../hacienda/secret-box.ts';

const ISSUER = 'factura-cr';

function totpOf(secret: Secret, label = 'account'): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: 30, secret });
}

/** A new secret, sealed for storage, with what an authenticator app needs to add it. */
export function newTotpSecret(key: Buffer, email: string): { sealed: Buffer; base32: string; url: string } {
  const secret = new Secret({ size: 20 });
  return {
    sealed: seal(key, Buffer.from(secret.base32, 'utf8')),
    base32: secret.base32,
    url: totpOf(secret, email).toString(),
  };
}

/** Whether a code matches the sealed secret now (one step of drift allowed). */
export function totpMatches(key: Buffer, sealed: Buffer, code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  const secret = Secret.fromBase32(open(key, sealed).toString('utf8'));
  return totpOf(secret).validate({ token: code, window: 1 }) !== null;
}

/** The code of a sealed secret at a time (for tests and the CLI). */
export function totpCodeAt(key: Buffer, sealed: Buffer, at: number): string {
  return totpOf(Secret.fromBase32(open(key, sealed).toString('utf8'))).generate({ timestamp: at });
}
