// Password hashes: argon2id with the library's defaults (@node-rs/argon2), verified in constant
// time by the library. Signing in with an email that has no account still runs one verification
// (against a hash made once per process), so the answer's timing does not tell whether an account
// exists.
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/** Algorithm.Argon2id (an ambient const enum the compiler cannot read here). */
const ARGON2ID = 2;

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

let dummy: Promise<string> | null = null;

/** Whether the password matches the stored hash; with no hash, a verification that always fails. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword(randomBytes(16).toString('hex'));
    await verify(await dummy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
