// Verifying the service's webhooks, on Web Crypto only (Node 20+, Deno, Bun, edge runtimes), with
// no other dependency. Every delivery carries
//
//   Service-Signature: t=<unix seconds>, v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
//
// keyed with the endpoint's whole secret string (`whsec_…`, UTF-8). While the endpoint's secret is
// rotated the header holds one v1 per valid secret; a delivery is genuine when any v1 matches any
// secret held. The timestamp is signed too: deliveries older than the tolerance (300 s) are
// refused, so a captured request cannot be replayed later. Verify the raw body exactly as
// received, before any JSON parsing.
import type { components, paths } from './schema.ts';

export const SIGNATURE_HEADER = 'Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type VerifyFailure = 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature';
export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** Largest accepted distance between the signed timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (default: now). */
  now?: Date | number;
}

const encoder = new TextEncoder();

function parseHeader(header: string): { timestamp: number; signatures: Uint8Array<ArrayBuffer>[] } | null {
  let timestamp: number | null = null;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) {
      signatures.push(Uint8Array.from(value.match(/../g)!, (h) => parseInt(h, 16)));
    }
    // Other schemes are ignored: a later version may add them beside v1.
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * What plain JavaScript can pass but the types forbid, refused with a TypeError that says what to
 * pass: a body already parsed (express.json() gives an object: its bytes are gone, so no signature
 * could match) or no secret.
 */
function checkArguments(rawBody: unknown, secrets: unknown): void {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array))
    throw new TypeError(
      'rawBody must be the body exactly as received (a string, Buffer or Uint8Array), not parsed JSON',
    );
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0 || !list.every((x) => typeof x === 'string' && x !== ''))
    throw new TypeError("secrets must be the endpoint's secret (whsec_…) or a non-empty array of them");
}

/** The header as frameworks hand it: a string, or (node:http's type) the values of repeated headers. */
export type SignatureHeaderValue = string | readonly string[] | null | undefined;

/**
 * Checks a delivery: the raw body, the Service-Signature header, and the endpoint's secret (or
 * secrets, while you rotate yours). Constant-time: Web Crypto's HMAC verify compares. Repeated
 * headers count as one, their values joined as HTTP joins them (`, `).
 */
export async function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: SignatureHeaderValue,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  checkArguments(rawBody, secrets);
  const joined = Array.isArray(header) ? header.join(', ') : header;
  const parsed = typeof joined === 'string' ? parseHeader(joined) : null;
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  if (
    Math.abs(Math.floor(now / 1000) - parsed.timestamp) >
    (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)
  )
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const signed = new Uint8Array(`${parsed.timestamp}.`.length + body.length);
  signed.set(encoder.encode(`${parsed.timestamp}.`));
  signed.set(body, signed.length - body.length);
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    const key = await crypto.subtle.importKey(
      'raw',
      encoder.encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['verify'],
    );
    for (const signature of parsed.signatures) {
      if (await crypto.subtle.verify('HMAC', key, signature, signed))
        return { ok: true, timestamp: parsed.timestamp };
    }
  }
  return { ok: false, reason: 'no_matching_signature' };
}

type Schemas = components['schemas'];

/** The event kinds, as the document lists them. */
export type EventKind = NonNullable<
  NonNullable<paths['/api/v1/events']['get']['parameters']['query']>['type']
>;

/** invoice.paid's data: the invoice is paid in full. */
export interface InvoicePaidData {
  invoice_id: string;
  amount: string;
  method: string;
  currency: string;
  payment_id: string;
  paid_at: string;
}

/** `data` of `webhook_endpoint.test`, sent on request to one endpoint. */
export interface WebhookEndpointTestData {
  object: 'webhook_endpoint_test';
  endpoint_id: string;
  message: { es: string; en: string };
}

/** The object each event kind carries in `data`. */
export interface EventDataByKind {
  'invoice.created': Schemas['Invoice'];
  'invoice.sent': Schemas['Invoice'];
  'invoice.accepted': Schemas['Invoice'];
  'invoice.rejected': Schemas['Invoice'];
  'invoice.processing_failed': Schemas['Invoice'];
  'invoice.retried': Schemas['Invoice'];
  'invoice.annulled': Schemas['Invoice'];
  'credit_note.created': Schemas['Invoice'];
  'debit_note.created': Schemas['Invoice'];
  'invoice.emailed': Schemas['Invoice'];
  'email.failed': Schemas['Invoice'];
  'invoice.paid': InvoicePaidData;
  'payment.created': Schemas['Payment'];
  'client.created': Schemas['Client'];
  'received_document.created': Schemas['ReceivedDocument'];
  'received_document.answered': Schemas['ReceivedDocument'];
  'webhook_endpoint.test': WebhookEndpointTestData;
}

// Fails to compile when the document gains an event kind that EventDataByKind does not map.
const everyKindMapped: [Exclude<EventKind, keyof EventDataByKind>] extends [never] ? true : false = true;
void everyKindMapped;

/**
 * A webhook delivery's body: `event` tells what `data` is; `sequence` is the event's place among its
 * document's events (1, 2, 3…; null for an event about no document).
 */
export type WebhookEvent = {
  [K in keyof EventDataByKind]: {
    id: string;
    event: K;
    created_at: string;
    sequence: number | null;
    data: EventDataByKind[K];
  };
}[keyof EventDataByKind];

export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  constructor(readonly reason: VerifyFailure) {
    super(`webhook refused: ${reason}`);
  }
}

/** Verifies a delivery and returns its parsed event; throws WebhookSignatureError when it is not genuine. */
export async function constructWebhookEvent(
  rawBody: string | Uint8Array,
  header: SignatureHeaderValue,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const result = await verifyWebhookSignature(rawBody, header, secrets, options);
  if (!result.ok) throw new WebhookSignatureError(result.reason);
  return JSON.parse(
    typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody),
  ) as WebhookEvent;
}
