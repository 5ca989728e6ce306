// The event kinds integrators can subscribe to, and the envelope every webhook carries.
// The reference names invoice.created, invoice.paid, payment.created and client.created; the
// product adds the three Hacienda outcomes of an issued invoice, and invoice.processing_failed
// for an invoice whose flow stopped and needs someone to look (its `processing_error` says why),
// `invoice.retried` when such an invoice is sent through the pipeline again,
// and the email of an accepted document to its receptor: sent (`invoice.emailed`) or given up
// (`email.failed`: refused for good with 5xx, or no server took it after every retry). Notes: a
// credit or debit note recorded (`credit_note.created`, `debit_note.created`; then the usual
// invoice.sent/accepted/rejected for the note itself), and a document whose credits reached its
// total (`invoice.annulled`).
export const EVENT_KINDS = [
  'invoice.created',
  'invoice.sent',
  'invoice.accepted',
  'invoice.rejected',
  'invoice.processing_failed',
  'invoice.retried',
  'invoice.paid',
  'payment.created',
  'client.created',
  'invoice.emailed',
  'email.failed',
  'credit_note.created',
  'debit_note.created',
  'invoice.annulled',
  // A supplier's document stored (received_document.created) and its MensajeReceptor judged by
  // Hacienda (received_document.answered, with the result sent and Hacienda's verdict).
  'received_document.created',
  'received_document.answered',
  // A test sent on request to one endpoint (POST /api/v1/webhook_endpoints/{id}/test), to that
  // endpoint only: never fanned out to the others, whatever they subscribe to.
  'webhook_endpoint.test',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * An endpoint's subscription to every event, present and future: `events: ["*"]`, stored and
 * shown as given, matched against each event's type when it is fanned out (db/queries/webhooks.ts).
 */
export const ALL_EVENTS = '*';

/** A subscription list is "*" alone or event kinds only; the index of an offending "*", else -1. */
export function misplacedWildcard(events: readonly string[]): number {
  return events.length > 1 ? events.indexOf(ALL_EVENTS) : -1;
}

/** What a receiver gets (and GET /api/v1/events/{id} shows): `id` is stable across retries. */
export interface EventEnvelope {
  id: string;
  event: string;
  created_at: string;
  /**
   * The event's place among the events of its document (an invoice or other issued document, a
   * received document; a payment's events count among its invoice's): 1, 2, 3… in the order they
   * happened. Null for an event about no document (client.created, an endpoint's test).
   */
  sequence: number | null;
  data: Record<string, unknown>;
}

/** How long events stay visible through the API (and can be redelivered). */
export const EVENT_RETENTION_DAYS = 30;
