// Webhook signatures, for the service (signing) and for integrators (verifying): pure code on
// node:crypto only, so a receiver can copy this file as it is.
//
//   Service-Signature: t=<unix seconds>, v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
//
// The HMAC key is the whole secret string as shown once (`whsec_…`, UTF-8). While a secret is
// being rotated the header carries one v1 per valid secret (newest first); a receiver accepts the
// request when any v1 matches any secret it holds. The timestamp is signed too, so a receiver
// that rejects old timestamps (300 s by default) discards replays.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A new endpoint secret: `whsec_` + 32 random bytes (base64url, 43 characters). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function hmacHex(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/** The header value for a body signed at `timestamp` (unix seconds) with each secret in order. */
export function signWebhookPayload(rawBody: string | Buffer, secrets: string[], timestamp: number): string {
  if (secrets.length === 0) throw new Error('at least one secret is needed to sign');
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmacHex(s, timestamp, rawBody)}`)].join(', ');
}

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

/** Parses `t=…, v1=…[, v1=…]`; unknown schemes are ignored (forward compatible). */
export function parseSignatureHeader(header: string): ParsedSignatureHeader | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) {
      signatures.push(value.toLowerCase());
    }
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature' };

export interface VerifyOptions {
  /** Largest accepted distance between the signed timestamp and now (seconds); default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock; defaults to Date.now(). */
  now?: Date | number;
}

/**
 * Verifies a webhook: `rawBody` exactly as received (before any JSON parsing), the
 * `Service-Signature` header, and the secret (or secrets, during your own rotation).
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string | null | undefined,
  secrets: string | string[],
  options: VerifyOptions = {},
): VerifyResult {
  const parsed = header ? parseSignatureHeader(header) : null;
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowMs = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  if (Math.abs(Math.floor(nowMs / 1000) - parsed.timestamp) > tolerance) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    const expected = Buffer.from(hmacHex(secret, parsed.timestamp, rawBody), 'hex');
    for (const given of parsed.signatures) {
      if (timingSafeEqual(expected, Buffer.from(given, 'hex'))) {
        return { ok: true, timestamp: parsed.timestamp };
      }
    }
  }
  return { ok: false, reason: 'no_matching_signature' };
}
