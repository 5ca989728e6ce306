// API key secrets: `ik_live_`/`ik_test_` + 40 random base62 characters (~238 bits). Only the
// SHA-256 of a secret is ever stored; listings show its last four characters.
import { createHash, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;

export function generateApiKeySecret(livemode: boolean): string {
  let body = '';
  for (let i = 0; i < SECRET_LENGTH; i++) body += BASE62[randomInt(62)];
  return `${livemode ? 'ik_live_' : 'ik_test_'}${body}`;
}

export function hashApiKeySecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** How a key is shown after creation: mode prefix and last four characters. */
export function redactedKey(livemode: boolean, last4: string): string {
  return `${livemode ? 'ik_live_' : 'ik_test_'}…${last4}`;
}
