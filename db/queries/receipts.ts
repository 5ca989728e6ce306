// The recibo electrónico de pago (10) a payment of a credit sale may issue (issue_receipt), in the
// payment's own transaction: numbered in its own series (tipo 10), referencing the factura it
// settles (TipoDocIR 01, Codigo 17), named on the payment, and sent through the invoice flow.
//
// What it says: the payment's share of every tax of the factura (domain/receipt-lines.ts): one
// line per tax signature of its lines (IVA rate, exoneration rate and each tax beside the IVA),
// its SubTotal the payment's share of their SubTotal, the other taxes their shares, the IVA on
// it at its rate (ImpuestoNeto less the exonerated and assumed shares: the REP has no
// Exoneracion; its ImpuestoNeto is "Monto del Impuesto menos Monto del Impuesto Exonerado", XSD),
// and one line per OtrosCargos (the REP has none) at IVA 11, 0 %. The receipt's total is the
// payment's amount to the fifth decimal, and the receipts of a factura paid in full carry its
// taxes (Art. 27 LIVA: the IVA of a credit sale of up to 90 days is due when paid). CondicionVenta
// 09 pays a sale to the State on credit (08), 11 any other credit sale (02, 10).
//
// Accounting: the receipt books nothing. The payment's entry (cash against receivables) is the
// payment's, and the sale was booked when the factura was issued; booking the receipt as a sale
// would count the revenue twice (chart-of-accounts.ts documentPosting('10') is empty).
import type { Knex } from 'knex';
import { Decimal } from 'decimal.js';
import type { Company } from '../models/index.ts';
import { invoiceObject } from '../public-objects.ts';
import { CONDICIONES_VENTA_CREDITO, type CodigoReferencia } from '../../domain/codes.ts';
import type { DocumentLine } from '../../domain/document-line.ts';
import { formatId } from '../../domain/ids.ts';
import { receiptLines as shareLines } from '../../domain/receipt-lines.ts';
import { computeDocumentTotals } from '../../domain/totals.ts';
import type { Tenant } from './clients.ts';
import { enqueueOutbox, recordEvents } from './events.ts';
import { invoiceInsertRow } from './invoice-bulk.ts';
import { reserveNumber, type InvoiceRow, type PreparedInvoice } from './invoices.ts';

export class ReceiptRefused extends Error {
  constructor(
    readonly code: 'receipt_not_applicable' | 'reference_not_accepted',
    message: string,
  ) {
    super(message);
    this.name = 'ReceiptRefused';
  }
}

/** Whether a payment of this invoice may issue a receipt (throws ReceiptRefused otherwise). */
export function assertReceiptAllowed(invoice: InvoiceRow): void {
  if (invoice.docType !== '01')
    throw new ReceiptRefused(
      'receipt_not_applicable',
      'A recibo electrónico de pago settles a factura electrónica (document_type 01)',
    );
  if (!(CONDICIONES_VENTA_CREDITO as readonly string[]).includes(invoice.condicionVenta))
    throw new ReceiptRefused(
      'receipt_not_applicable',
      `A recibo electrónico de pago settles a credit sale (credito, servicios_estado_credito, credito_iva_90); this invoice is ${invoice.condition}`,
    );
  if (invoice.status !== 'aceptada' || !invoice.clave)
    throw new ReceiptRefused(
      'reference_not_accepted',
      `Only an invoice Hacienda accepted can be referenced by a receipt; this one is ${invoice.status}`,
    );
}

/**
 * The receipt's lines (domain/receipt-lines.ts): the payment's share of the factura's lines grouped
 * by their taxes (IVA and each tax beside it), and of each of its OtrosCargos; they add up to the
 * payment exactly.
 */
export function receiptLines(
  invoice: InvoiceRow,
  amount: string,
  paidBefore: string,
  settles: boolean,
): DocumentLine[] {
  return shareLines(
    {
      lines: invoice.lines.map((l) => l.input),
      lineTotals: invoice.summary.lines,
      otherCharges: invoice.summary.otherCharges,
      totalComprobante: invoice.summary.summary.totalComprobante,
      currency: invoice.currency,
      exchangeRate: invoice.exchangeRate,
      label: `Pago de la factura ${invoice.consecutivo ?? formatId('invoice', invoice.id)}`,
    },
    amount,
    paidBefore,
    settles,
  );
}

/**
 * Records the receipt of a payment just recorded (the invoice is locked by the caller's
 * transaction) and names it on the payment. Returns the receipt's row.
 */
export async function issueReceipt(
  trx: Knex.Transaction,
  tenant: Tenant,
  company: Company,
  invoice: InvoiceRow,
  payment: { id: number; amount: string; method: string; paymentMethodOther?: string | null },
  paid: { before: string; settles: boolean },
  requestId: string | null,
): Promise<InvoiceRow> {
  assertReceiptAllowed(invoice);
  const lines = receiptLines(invoice, payment.amount, paid.before, paid.settles);
  const totals = computeDocumentTotals(lines, {
    currency: invoice.currency,
    exchangeRate: invoice.exchangeRate,
    docType: '10',
  });
  if (!new Decimal(totals.summary.totalComprobante).eq(payment.amount))
    throw new Error(`receipt of payment ${payment.id}: its total differs from the payment`);
  const toState = invoice.condicionVenta === '08';
  const prepared: PreparedInvoice = {
    clientId: invoice.clientId,
    docType: '10' as PreparedInvoice['docType'],
    branch: invoice.branch,
    terminal: invoice.terminal,
    currency: invoice.currency,
    exchangeRate: invoice.exchangeRate,
    condition: toState ? 'pago_servicios_estado' : 'pago_credito',
    condicionVenta: toState ? '09' : '11',
    conditionOther: null,
    creditDays: null,
    paymentMethods: [payment.method],
    paymentMethodOther: payment.method === 'otros' ? (payment.paymentMethodOther ?? 'Otro medio') : null,
    paidAtIssue: false,
    lines: lines.map((input) => ({ serviceId: null, input })),
    totals,
    externalId: null,
    metadata: {},
    emailRecipients: [],
    reference: {
      documentId: invoice.id,
      docType: '01',
      clave: invoice.clave!,
      issuedAt: new Date(invoice.issuedAt!).toISOString(),
      code: '17' as CodigoReferencia,
      reason: `Pago ${formatId('payment', payment.id)} de la factura ${invoice.consecutivo}`,
    },
  };
  const number = await reserveNumber(trx, {
    ...tenant,
    docType: '10',
    branch: prepared.branch,
    terminal: prepared.terminal,
  });
  const insert = invoiceInsertRow(tenant, prepared, number, new Date(), company.idNumber, requestId ?? '');
  // A receipt is owed by nobody: it records what was paid.
  const [receipt] = (await trx('invoices')
    .insert({ ...insert, requestId, balanceDue: 0, paymentStatus: 'paid' })
    .returning('*')) as InvoiceRow[];
  await trx('payments').where({ id: payment.id }).update({ receiptInvoiceId: receipt!.id });
  await recordEvents(trx, [{ ...tenant, type: 'invoice.created', data: invoiceObject(receipt!), requestId }]);
  await enqueueOutbox(trx, 'invoice.flow', { invoiceId: receipt!.id }, requestId);
  return receipt!;
}
