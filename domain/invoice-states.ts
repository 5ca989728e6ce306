// Invoice states and the transitions between them. Every state change in the database is a
// guarded update from one of the allowed `from` states, so two racing attempts cannot both win.
//
//   borrador ──send──▶ pendiente ──submitted──▶ enviada ──▶ aceptada
//                          │                           └──▶ rechazada
//                          └── refused at reception (HTTP 400) ──▶ rechazada
export const INVOICE_STATES = ['borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada'] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];

export const TRANSITIONS: Record<InvoiceState, readonly InvoiceState[]> = {
  borrador: ['pendiente'],
  pendiente: ['enviada', 'rechazada'],
  enviada: ['aceptada', 'rechazada'],
  aceptada: [],
  rechazada: [],
};

export function canTransition(from: InvoiceState, to: InvoiceState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(state: InvoiceState): boolean {
  return TRANSITIONS[state].length === 0;
}

/** States an integrator waiting with `Prefer: wait` is satisfied by. */
export function isSettledForWait(state: InvoiceState): boolean {
  return state === 'enviada' || isTerminal(state);
}

export const PAYMENT_STATUSES = ['unpaid', 'partial', 'paid'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
