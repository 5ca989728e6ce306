// Builds the unsigned XML of a recibo electrónico de pago (REP, tipo 10): the reduced layout of
// ReciboElectronicoPago_V4.4.xsd (the v4.4 XSD of each document type) — no activity codes, parties with name,
// identification and email only, CondicionVenta 09 or 11, lines of NumeroLinea, Detalle,
// MontoTotal, SubTotal, Impuesto, ImpuestoNeto and MontoTotalLinea, a summary without the
// goods/services split, at least one MedioPago, and InformacionReferencia (with its Numero) to the
// document the payment settles. The figures are the computed totals of the receipt's own lines.
// The REP's Impuesto has no Exoneracion: a line standing for exonerated sales writes Monto at the
// rate and ImpuestoNeto net of the exonerated share (the XSD's ImpuestoNeto: "Monto del Impuesto
// menos Monto del Impuesto Exonerado"), so its MontoTotalLinea is what the payment settled.
import { ClaveError, assertClaveMatches } from '../../domain/clave.ts';
import { formatCrDateTime } from '../../domain/cr-time.ts';
import { DomainValidationError, type FieldError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/totals.ts';
import { XMLDSIG_NAMESPACE, type ComprobanteKindInfo } from './document-types.ts';
import type { ComprobanteDocument } from './types.ts';
import { XmlWriter } from './writer.ts';

const MAX_EMAILS = 4;

function check(kind: ComprobanteKindInfo, doc: ComprobanteDocument): FieldError[] {
  const errors: FieldError[] = [];
  const add = (path: string, code: string, message: string) => errors.push({ path, code, message });
  try {
    assertClaveMatches(doc.clave, {
      consecutivo: doc.consecutivo,
      emisorId: doc.emisor.idNumber,
      docType: kind.docType,
    });
  } catch (err) {
    if (!(err instanceof ClaveError)) throw err;
    add('/clave', err.code, err.message);
  }
  if (!doc.receptor) add('/receptor', 'required', `${kind.root} needs a receptor`);
  if (!kind.conditions.includes(doc.condicionVenta))
    add(
      '/condicionVenta',
      'not_allowed',
      `a ${kind.root} has CondicionVenta ${kind.conditions.join(' or ')}`,
    );
  if (doc.emisor.emails.length < 1 || doc.emisor.emails.length > MAX_EMAILS)
    add('/emisor/emails', 'invalid_value', 'the emisor needs 1 to 4 email addresses');
  if (doc.mediosPago.length < 1 || doc.mediosPago.length > 4)
    add('/mediosPago', 'invalid_value', 'a receipt names 1 to 4 payment methods');
  const refs = doc.referencias ?? [];
  if (refs.length < 1 || refs.length > 10)
    add('/referencias', 'invalid_value', 'a receipt references 1 to 10 documents');
  refs.forEach((r, i) => {
    if (!r.number) add(`/referencias/${i}/number`, 'required', 'the referenced clave is required');
  });
  if (doc.totals.lines.length !== doc.lines.length)
    add('/totals', 'mismatch', 'the totals were computed from different lines');
  return errors;
}

/**
 * Writes the unsigned REP of the type `kind` (buildComprobanteXml's, for a type whose writer is
 * `recibo`); throws DomainValidationError when the document is inconsistent.
 */
export function buildReceiptXml(doc: ComprobanteDocument, kind: ComprobanteKindInfo): string {
  const errors = check(kind, doc);
  if (errors.length > 0) throw new DomainValidationError(errors);
  const w = new XmlWriter().declaration();
  w.open(kind.root, { xmlns: kind.namespace, 'xmlns:ds': XMLDSIG_NAMESPACE })
    .leaf('Clave', doc.clave)
    .leaf('ProveedorSistemas', doc.proveedorSistemas)
    .leaf('NumeroConsecutivo', doc.consecutivo)
    .leaf('FechaEmision', formatCrDateTime(doc.issuedAt));
  w.open('Emisor').leaf('Nombre', doc.emisor.name);
  w.open('Identificacion').leaf('Tipo', doc.emisor.idType).leaf('Numero', doc.emisor.idNumber).close();
  for (const email of doc.emisor.emails) w.leaf('CorreoElectronico', email);
  w.close();
  const r = doc.receptor!;
  w.open('Receptor').leaf('Nombre', r.name);
  w.open('Identificacion').leaf('Tipo', r.idType).leaf('Numero', r.idNumber).close();
  w.optLeaf('CorreoElectronico', r.email).close();
  w.leaf('CondicionVenta', doc.condicionVenta);

  w.open('DetalleServicio');
  doc.lines.forEach((line, i) => {
    const t = doc.totals.lines[i]!;
    w.open('LineaDetalle')
      .leaf('NumeroLinea', String(t.lineNumber))
      .leaf('Detalle', line.description)
      .leaf('MontoTotal', t.montoTotal)
      .leaf('SubTotal', t.subTotal);
    for (const tax of t.taxes) {
      w.open('Impuesto')
        .leaf('Codigo', tax.code)
        .optLeaf('CodigoImpuestoOTRO', tax.codeOther)
        .optLeaf('CodigoTarifaIVA', tax.ivaRateCode)
        .optLeaf('Tarifa', tax.rate)
        .optLeaf('FactorCalculoIVA', tax.factor)
        .leaf('Monto', tax.amount)
        .close();
    }
    w.leaf('ImpuestoNeto', t.impuestoNeto).leaf('MontoTotalLinea', t.montoTotalLinea).close();
  });
  w.close();

  const s = doc.totals.summary;
  w.open('ResumenFactura')
    .open('CodigoTipoMoneda')
    .leaf('CodigoMoneda', s.currency)
    .leaf('TipoCambio', s.exchangeRate)
    .close()
    .leaf('TotalVenta', s.totalVenta)
    .leaf('TotalVentaNeta', s.totalVentaNeta);
  for (const d of s.totalDesgloseImpuesto) {
    w.open('TotalDesgloseImpuesto')
      .leaf('Codigo', d.code)
      .optLeaf('CodigoTarifaIVA', d.ivaRateCode ?? undefined)
      .leaf('TotalMontoImpuesto', d.amount)
      .close();
  }
  w.leaf('TotalImpuesto', s.totalImpuesto);
  for (const m of doc.mediosPago) {
    w.open('MedioPago')
      .leaf('TipoMedioPago', m.type)
      .optLeaf('MedioPagoOtros', m.other)
      .optLeaf('TotalMedioPago', m.total === undefined ? undefined : formatAmount(m.total))
      .close();
  }
  w.leaf('TotalComprobante', s.totalComprobante).close();

  for (const ref of doc.referencias ?? []) {
    w.open('InformacionReferencia')
      .leaf('TipoDocIR', ref.docType)
      .optLeaf('TipoDocRefOTRO', ref.docTypeOther)
      .leaf('Numero', ref.number!)
      .leaf('FechaEmisionIR', formatCrDateTime(ref.issuedAt))
      .optLeaf('Codigo', ref.code)
      .optLeaf('CodigoReferenciaOTRO', ref.codeOther)
      .optLeaf('Razon', ref.reason)
      .close();
  }
  return w.close().toString();
}
