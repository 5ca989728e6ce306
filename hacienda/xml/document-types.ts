// The writer's view of a comprobante type: its root element, namespace, schema file and the few
// structural differences between the types (the 2026 XSD set and its Anexos), as each type's
// descriptor states them (domain/document-types/). The line, party and summary writers are shared.
import {
  documentType,
  documentTypeOfRoot,
  NAMESPACE_BASE,
  UnknownDocumentTypeError,
  type DocumentTypeDescriptor,
  type XmlLayout,
} from '../../domain/document-types/index.ts';

export { NAMESPACE_BASE };
export const XMLDSIG_NAMESPACE = 'http://www.w3.org/2000/09/xmldsig#';

/** The root elements of the comprobantes Hacienda defines (each also names its schema file). */
export type ComprobanteKind =
  | 'FacturaElectronica'
  | 'NotaDebitoElectronica'
  | 'NotaCreditoElectronica'
  | 'TiqueteElectronico'
  | 'FacturaElectronicaExportacion'
  | 'FacturaElectronicaCompra'
  | 'ReciboElectronicoPago';

export interface ComprobanteKindInfo extends XmlLayout {
  /** Positions 9-10 of the consecutivo. */
  docType: string;
  /** The CondicionVenta codes the type accepts. */
  conditions: readonly string[];
}

/**
 * The layout of a type, named by its code ('01'), its descriptor, or a root element (Hacienda's
 * type of that root: 'FacturaElectronica' is the 01).
 */
export function comprobanteKind(type: string | DocumentTypeDescriptor): ComprobanteKindInfo {
  const d =
    typeof type !== 'string' ? type : /^\d{2}$/.test(type) ? documentType(type) : documentTypeOfRoot(type);
  if (!d) throw new UnknownDocumentTypeError(`no document type is written as ${String(type)}`);
  let kind = KINDS.get(d);
  if (!kind) {
    kind = Object.freeze({ ...d.xml, docType: d.code, conditions: d.conditions });
    KINDS.set(d, kind);
  }
  return kind;
}
/** Each descriptor's layout, made once: every document written asks for it. */
const KINDS = new WeakMap<DocumentTypeDescriptor, ComprobanteKindInfo>();
