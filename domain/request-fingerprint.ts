// The fingerprint of a request for idempotency: SHA-256 of the route and the body with its keys
// sorted, so the same JSON in another key order is the same request.
import { createHash } from 'node:crypto';

/** The route whose idempotency keys single creates and batch items share. */
export const INVOICE_CREATE_ROUTE = 'POST /api/v1/invoices';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function requestFingerprint(route: string, body: unknown): Buffer {
  return createHash('sha256')
    .update(route)
    .update('\n')
    .update(JSON.stringify(canonical(body) ?? null))
    .digest();
}
