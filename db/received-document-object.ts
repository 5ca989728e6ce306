// A received document row → its public API object (`received_document`, id `rcv_…`): what the
// supplier's document says, and its answer (the MensajeReceptor) once one was asked for.
import { Decimal } from 'decimal.js';
import { formatId } from '../domain/ids.ts';
import type { PublicReceivedDocumentRow } from './queries/received-documents.ts';

const money = (v: string | null) => (v === null ? null : new Decimal(v).toFixed(5));
const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

export function receivedDocumentObject(row: PublicReceivedDocumentRow) {
  const reason = row.answerRejectionReason as { summary?: { es: string; en: string } } | null;
  return {
    id: formatId('receivedDocument', row.id),
    object: 'received_document' as const,
    livemode: row.livemode,
    clave: row.clave,
    document_type: row.docType,
    consecutivo: row.consecutivo,
    issued_at: iso(row.issuedAt)!,
    emisor: {
      identification_type: row.emisorIdType,
      cedula: row.emisorIdNumber,
      name: row.emisorName,
    },
    receptor: { identification_type: row.receptorIdType, cedula: row.receptorIdNumber },
    currency: row.currency,
    total_tax: money(row.totalTax)!,
    total: money(row.total)!,
    answer:
      row.answerResult === null
        ? null
        : {
            result: row.answerResult,
            status: row.answerStatus!,
            reason: row.answerReason,
            tax_condition: row.answerTaxCondition,
            iva_credit: money(row.answerIvaCredit),
            expense: money(row.answerExpense),
            activity_code: row.answerActivityCode,
            consecutivo: row.answerConsecutivo,
            hacienda_status: row.answerHaciendaStatus,
            rejection_reason: reason?.summary ?? null,
            warnings: (row.answerWarnings ?? []).map((w) => ({
              code: w.code,
              message: w.message,
              readable: { es: w.readable.es, en: w.readable.en },
              fix: { es: w.fix.es, en: w.fix.en },
            })),
            error: row.answerError,
            requested_at: iso(row.answerRequestedAt),
            signed_at: iso(row.answerSignedAt),
            submitted_at: iso(row.answerSubmittedAt),
            answered_at: iso(row.answeredAt),
          },
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}
