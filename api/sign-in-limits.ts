// How many sign-ins may fail before the service stops checking for a while: per email address
// (someone guessing one person's password or TOTP code) and per client address (someone trying
// many accounts). A wrong password and a wrong TOTP code both count; past the limit, 429
// `too_many_attempts` with Retry-After until the oldest failure leaves the window.
import type { FastifyRequest } from 'fastify';
import type { Knex } from 'knex';
import { normalEmail } from '../domain/passwords.ts';
import { pruneSignInFailures, recordSignInFailure, signInFailures } from '../db/queries/sign-in-failures.ts';
import { addressUnit } from './auth-failures.ts';
import { ApiError } from './errors.ts';

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const FAILURES_PER_EMAIL = 5;
export const FAILURES_PER_ADDRESS = 30;

function subjects(request: FastifyRequest, email: string): [string, string] {
  return [`email:${normalEmail(email)}`, `ip:${addressUnit(request.ip ?? '')}`];
}

/** 429 when the email or the address is over its limit. */
export async function checkSignInLimits(db: Knex, request: FastifyRequest, email: string): Promise<void> {
  const [byEmail, byAddress] = subjects(request, email);
  for (const [subject, limit] of [
    [byEmail, FAILURES_PER_EMAIL],
    [byAddress, FAILURES_PER_ADDRESS],
  ] as const) {
    const { count, oldestAt } = await signInFailures(db, subject, SIGN_IN_WINDOW_SECONDS);
    if (count < limit) continue;
    const endsIn = oldestAt ? oldestAt.getTime() + SIGN_IN_WINDOW_SECONDS * 1000 - Date.now() : 60_000;
    throw new ApiError(
      'too_many_attempts',
      'Demasiados intentos fallidos; espere antes de intentar de nuevo (too many failed attempts; wait before trying again)',
      { headers: { 'retry-after': String(Math.max(1, Math.ceil(endsIn / 1000))) } },
    );
  }
}

export async function countSignInFailure(db: Knex, request: FastifyRequest, email: string): Promise<void> {
  await recordSignInFailure(db, subjects(request, email));
  if (Math.random() < 0.01) await pruneSignInFailures(db, SIGN_IN_WINDOW_SECONDS);
}
