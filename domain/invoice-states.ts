// Invoice states. Every state change in the database is a guarded update from the states it may
// leave (db/queries/invoice-state.ts, transition), so two racing attempts cannot both win.
//
//   borrador ──send──▶ pendiente ──submitted──▶ enviada ──▶ aceptada
//                          │                           └──▶ rechazada
//                          └── refused at reception (HTTP 400) ──▶ rechazada
//
// Besides its status, an invoice's flow may stop waiting for a person: a permanent processing
// error (`processing_error.permanent`) outside the booking step (a failed booking stops only the
// booking; Hacienda's verdict is still awaited). SQL twin: FLOW_STOPPED_SQL
// (db/queries/processing-error.ts) and the status notification's trigger.
export const INVOICE_STATES = ['borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada'] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];

/** Hacienda's verdict is in: nothing moves the invoice any more. */
function isTerminal(state: InvoiceState): boolean {
  return state === 'aceptada' || state === 'rechazada';
}

/** A recorded processing error, as stored (JSON text or object), or none. */
export type StoredProcessingError = Record<string, unknown> | string | null | undefined;

/** The flow waits for a person: a permanent processing error outside the booking step. */
export function isFlowStopped(error: StoredProcessingError): boolean {
  if (!error) return false;
  const e = typeof error === 'string' ? (JSON.parse(error) as Record<string, unknown>) : error;
  return e.permanent === true && e.step !== 'accounting';
}

/**
 * States an integrator waiting with `Prefer: wait` is satisfied by: the final ones — Hacienda's
 * verdict (aceptada, rechazada), or a flow stopped until a person acts.
 */
export function isFinalForWait(state: InvoiceState, processingError: StoredProcessingError): boolean {
  return isTerminal(state) || (state !== 'borrador' && isFlowStopped(processingError));
}
