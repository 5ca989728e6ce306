// Invoice states. Every state change in the database is a guarded update from the states it may
// leave (db/queries/invoice-state.ts, transition), so two racing attempts cannot both win.
//
//   borrador ──send──▶ pendiente ──submitted──▶ enviada ──▶ aceptada
//                          │                           └──▶ rechazada
//                          └── refused at reception (HTTP 400) ──▶ rechazada
export const INVOICE_STATES = ['borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada'] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];

/** Hacienda's verdict is in: nothing moves the invoice any more. */
function isTerminal(state: InvoiceState): boolean {
  return state === 'aceptada' || state === 'rechazada';
}

/** States an integrator waiting with `Prefer: wait` is satisfied by. */
export function isSettledForWait(state: InvoiceState): boolean {
  return state === 'enviada' || isTerminal(state);
}
