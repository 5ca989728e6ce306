// MensajeReceptor v4.4 (tipos 05/06/07): the receptor's answer to a supplier's comprobante, in the
// XSD's order (MensajeReceptor_V4.4.xsd, the v4.4 XSD of each document type): Clave (the supplier's document),
// NumeroCedulaEmisor (the supplier), FechaEmisionDoc (of this message), Mensaje, DetalleMensaje,
// MontoTotalImpuesto, CodigoActividad, CondicionImpuesto, MontoTotalImpuestoAcreditar,
// MontoTotalDeGastoAplicable, TotalFactura, NumeroCedulaReceptor (us), NumeroConsecutivoReceptor;
// the signature comes last. Written by the same writer as the comprobantes, unsigned.
import { formatCrDateTime } from '../../domain/cr-time.ts';
import { NAMESPACE_BASE, XMLDSIG_NAMESPACE } from './document-types.ts';
import { XmlWriter } from './writer.ts';

export const MENSAJE_RECEPTOR_NAMESPACE = `${NAMESPACE_BASE}mensajeReceptor`;

export interface MensajeReceptorDocument {
  /** Clave of the supplier's document answered. */
  clave: string;
  emisorIdNumber: string;
  issuedAt: Date;
  mensaje: '1' | '2' | '3';
  detalle: string | null;
  /** The document's TotalImpuesto; written when the document has tax. */
  totalTax: string | null;
  activityCode: string | null;
  taxCondition: string | null;
  ivaCredit: string | null;
  expense: string | null;
  /** The document's TotalComprobante. */
  total: string;
  receptorIdNumber: string;
  /** NumeroConsecutivoReceptor: our own 20 digits, tipo 05/06/07. */
  consecutivo: string;
}

export function buildMensajeReceptorXml(doc: MensajeReceptorDocument): string {
  const w = new XmlWriter().declaration();
  w.open('MensajeReceptor', { xmlns: MENSAJE_RECEPTOR_NAMESPACE, 'xmlns:ds': XMLDSIG_NAMESPACE })
    .leaf('Clave', doc.clave)
    .leaf('NumeroCedulaEmisor', doc.emisorIdNumber)
    .leaf('FechaEmisionDoc', formatCrDateTime(doc.issuedAt))
    .leaf('Mensaje', doc.mensaje)
    .optLeaf('DetalleMensaje', doc.detalle)
    .optLeaf('MontoTotalImpuesto', doc.totalTax)
    .optLeaf('CodigoActividad', doc.activityCode)
    .optLeaf('CondicionImpuesto', doc.taxCondition)
    .optLeaf('MontoTotalImpuestoAcreditar', doc.ivaCredit)
    .optLeaf('MontoTotalDeGastoAplicable', doc.expense)
    .leaf('TotalFactura', doc.total)
    .leaf('NumeroCedulaReceptor', doc.receptorIdNumber)
    .leaf('NumeroConsecutivoReceptor', doc.consecutivo);
  return w.close().toString();
}
