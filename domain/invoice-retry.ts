// Which invoices may go through the pipeline again (POST /api/v1/invoices/{id}/retry), and
// whether the cause of their failure is known to be still there. Only a document Hacienda has
// never received can be retried under its own consecutivo and clave: `pendiente` with a
// permanent processing error (the flow stopped and waits for a person). One that reached
// Hacienda cannot: `enviada` waits for its verdict, `aceptada` is final, and a `rechazada` one is
// replaced by a new document that references it.
export type RetryRefusalCode = 'invoice_not_retryable' | 'retry_cause_persists';

export interface RetryRefusal {
  code: RetryRefusalCode;
  message: string;
}

/** What the service knows of the company's credentials in the invoice's mode. */
export interface RetryCredentials {
  hasSigningKey: boolean;
  certificateNotAfter: Date | null;
  hasHaciendaUser: boolean;
}

export interface RetryCandidate {
  status: string;
  livemode: boolean;
  signed: boolean;
  processingError: Record<string, unknown> | null;
}

/** Null when the invoice may be retried now; otherwise why not. */
export function retryRefusal(
  invoice: RetryCandidate,
  credentials: RetryCredentials | null,
  now: Date,
): RetryRefusal | null {
  const notRetryable = (message: string): RetryRefusal => ({ code: 'invoice_not_retryable', message });
  switch (invoice.status) {
    case 'borrador':
      return notRetryable('The invoice is a draft: issue it with POST /api/v1/invoices/{id}/send');
    case 'enviada':
      return notRetryable('Hacienda has received the invoice; its verdict is awaited');
    case 'aceptada':
      return notRetryable('Hacienda accepted the invoice');
    case 'rechazada':
      return notRetryable(
        'Hacienda rejected the invoice: issue a new document that replaces it (`replaces` in POST /api/v1/invoices)',
      );
  }
  if (invoice.processingError?.permanent !== true)
    return notRetryable('The invoice is still being processed; nothing has failed for good');
  // The causes the service can check before trying again: the credentials the failed step needs.
  const persists = (message: string): RetryRefusal => ({ code: 'retry_cause_persists', message });
  if (!invoice.signed) {
    if (!credentials?.hasSigningKey)
      return persists('The company has no signing certificate in this mode: upload one first');
    const notAfter = credentials.certificateNotAfter;
    if (notAfter && notAfter.getTime() < now.getTime())
      return persists(
        `The company's signing certificate expired on ${notAfter.toISOString()}: upload a current one first`,
      );
  }
  if (invoice.livemode && !credentials?.hasHaciendaUser)
    return persists('The company has no Hacienda API user in live mode: save one first');
  return null;
}
