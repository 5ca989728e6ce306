// The token in the callback URL given to Hacienda: an HMAC of the clave under SECRETS_KEY, so
// only Hacienda (which received the URL) can prod a status job, and it can only prod its own.
import { createHmac } from 'node:crypto';

export function callbackToken(secretsKey: Buffer, clave: string): string {
  return createHmac('sha256', secretsKey)
    .update(`hacienda-callback:${clave}`)
    .digest('base64url')
    .slice(0, 32);
}
