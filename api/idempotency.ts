// The Idempotency-Key header: at most 255 visible characters, scoped to the company and mode,
// kept 24 hours. The request fingerprint is a SHA-256 of the route and the body with its keys
// sorted, so the same JSON in another key order is the same request.
import type { FastifyRequest } from 'fastify';
import type { IdempotencyInput } from '../db/queries/invoices.ts';
import { requestFingerprint } from '../domain/request-fingerprint.ts';
import { validationError } from './errors.ts';

export function idempotencyFromRequest(request: FastifyRequest, route: string): IdempotencyInput | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw[0]! : raw;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw validationError([
      {
        path: 'header:/idempotency-key',
        code: 'invalid_format',
        message: 'must be 1 to 255 visible ASCII characters',
      },
    ]);
  }
  return { key, route, hash: requestFingerprint(route, request.body) };
}

/** Parses RFC 7240 `Prefer: wait=N` (seconds, capped at 30). */
export function preferWait(request: FastifyRequest): number | null {
  const raw = request.headers.prefer;
  if (!raw) return null;
  const m = /(?:^|[,;\s])wait=(\d{1,4})(?:$|[,;\s])/i.exec(Array.isArray(raw) ? raw.join(',') : raw);
  if (!m) return null;
  return Math.min(30, Number(m[1]));
}

export function requestLanguage(request: FastifyRequest): 'es' | 'en' {
  const raw = request.headers['accept-language'];
  const v = (Array.isArray(raw) ? raw[0] : raw) ?? '';
  const first = v.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('en') ? 'en' : 'es';
}
