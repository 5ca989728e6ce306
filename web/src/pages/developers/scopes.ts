// The scopes a key may hold (domain/scopes.ts), in the order the page lists them; each described
// in the reader's language (i18n `scopes.<scope>`).
export const SCOPE_LIST = [
  'read:invoices',
  'write:invoices',
  'write:drafts',
  'read:clients',
  'write:clients',
  'read:services',
  'write:services',
  'write:payments',
  'read:company',
  'manage:company',
  'manage:webhooks',
  'manage:keys',
  'read:usage',
  'answer:received',
  'read:reports',
  'read:audit',
  'manage:members',
] as const;

export type ScopeName = (typeof SCOPE_LIST)[number];

export const EVENTS = [
  'invoice.created',
  'invoice.sent',
  'invoice.accepted',
  'invoice.rejected',
  'invoice.processing_failed',
  'invoice.retried',
  'invoice.paid',
  'invoice.emailed',
  'invoice.annulled',
  'payment.created',
  'client.created',
  'email.failed',
  'credit_note.created',
  'debit_note.created',
  'received_document.created',
  'received_document.answered',
] as const;

export type EventName = (typeof EVENTS)[number];
