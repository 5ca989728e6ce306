// What a document type is, said once: its code and names, its XML (root, namespace, schema and
// the layout flags the writer and the schema check follow), what its request may hold, how the
// worker rebuilds its parties, how it is booked, and which type-specific rules Hacienda applies
// to it. Plain strings and flags only: the API, the XML builder, the PDF, the simulator and the
// command-line tool read a descriptor instead of switching on codes (registry: ./index.ts).
import { CONDICIONES_VENTA, type CondicionVenta, type TipoComprobante } from '../codes.ts';

/** The XML of a type: the writer's and the schema check's facts (the 2026 XSD set and its Anexos). */
export interface XmlLayout {
  /** Root element; the schema file is `<root>_V4.4.xsd`. */
  readonly root: string;
  readonly namespace: string;
  /** Schema file name inside the XSD set directory. */
  readonly xsdFile: string;
  /** Which writer builds it: the shared comprobante layout, the REP's reduced one, or the receptor's message. */
  readonly writer: 'comprobante' | 'recibo' | 'mensaje-receptor';
  /** CodigoActividadEmisor cardinality. */
  readonly activityCode: 'required' | 'optional';
  /** Whether CodigoActividadReceptor exists in this schema. */
  readonly receptorActivityCode: boolean;
  readonly receptor: 'required' | 'optional';
  /** Whether LineaDetalle has TipoTransaccion. */
  readonly tipoTransaccion: boolean;
  /** Whether LineaDetalle has PartidaArancelaria (before CodigoCABYS). */
  readonly partidaArancelaria: boolean;
  /** Minimum number of InformacionReferencia elements (maximum is 10 everywhere). */
  readonly minReferencias: number;
  /**
   * `exportacion`: the FEE's reduced shapes. Receptor without Ubicacion (a foreign address goes in
   * OtrasSenasExtranjero); LineaDetalle without BaseImponible, ImpuestoAsumidoEmisorFabrica,
   * ImpuestoNeto and Exoneracion; ResumenFactura without the exonerado / no sujeto totals and
   * TotalIVADevuelto. Absent: the FE's shapes.
   */
  readonly layout?: 'exportacion';
  /**
   * The party whose identification the clave carries, the issuer who signs (default `emisor`).
   * A factura electrónica de compra is issued and signed by its receptor, the buyer.
   */
  readonly issuer?: 'emisor' | 'receptor';
  /** Emisor/Ubicacion cardinality (default required); the FEC's emisor may be a foreign supplier. */
  readonly emisorUbicacion?: 'required' | 'optional';
  /** Whether LineaDetalle has ImpuestoAsumidoEmisorFabrica (default true). */
  readonly impuestoAsumido?: boolean;
}

/** What a request for the type may hold (POST /api/v1/invoices, or its own endpoint). */
export interface RequestRules {
  /**
   * How the request reads: `invoice` (a client and catalogue lines, domain/invoice-request.ts),
   * `purchase` (a supplier as the emisor, domain/purchase-request.ts); both through
   * POST /api/v1/invoices with its `document_type`. `note` and `receipt` come from their own
   * endpoints (credit notes, payments).
   */
  readonly form: 'invoice' | 'purchase' | 'note' | 'receipt';
  /**
   * The receptor: `required`; `optional` (then a sale to no one is a cash sale paid at issue);
   * `foreign` (required, a foreign client; its lines carry IVA only, at the export 0% rate).
   */
  readonly receptor: 'required' | 'optional' | 'foreign';
  /** Whether lines may give a PartidaArancelaria (`tariff_code`). */
  readonly tariffCodes: boolean;
  /** How the request names it in messages ("a factura electrónica de exportación names …"). */
  readonly article: string;
}

/** A type-specific rule set Hacienda applies (simulator/checks), beside the shared rules. */
export type TypeCheck = 'exportacion' | 'purchase' | 'receipt' | 'totals';

export interface DocumentTypeDescriptor {
  /** Tipo de comprobante (Anexos nota 3): positions 9-10 of the consecutivo, its numbering series. */
  readonly code: string;
  readonly name: { readonly es: string; readonly en: string };
  /**
   * The type whose code tables apply (IVA rates, taxes beside the IVA, TotalIVADevuelto): a type
   * of Hacienda's names itself; a type cloned from one names the one it follows.
   */
  readonly rules: TipoComprobante;
  /** The CondicionVenta codes the type accepts (XSD enumerations of the 2026 set). */
  readonly conditions: readonly CondicionVenta[];
  readonly xml: XmlLayout;
  /** What its request may hold; null: the service never issues it on a request (answers). */
  readonly request: RequestRules | null;
  /**
   * Whose parties the worker writes: `sale` (the company to its client), `purchase` (the supplier
   * to the company), `receipt` (the company to the client, names only), `answer` (a receptor's
   * message on a received document).
   */
  readonly parties: 'sale' | 'purchase' | 'receipt' | 'answer';
  /**
   * Its issue entry: `sale` adds revenue and receivables, `credit` reverses them, `purchase`
   * books an expense against payables, `none` books nothing (the payment has its own entry).
   */
  readonly booking: 'sale' | 'credit' | 'purchase' | 'none';
  /** Whether its IVA is returned in the share of the document it references (notes). */
  readonly referencesIvaReturned: boolean;
  /** The type-specific rules Hacienda checks on it. */
  readonly checks: readonly TypeCheck[];
  /** Whether a supplier's document of this type is received and answered with a MensajeReceptor. */
  readonly answerable: boolean;
  /** A receptor's message: its Mensaje (1 accepted, 2 partially accepted, 3 rejected). */
  readonly mensaje?: '1' | '2' | '3';
}

/** Every v4.4 namespace is this prefix plus the lowerCamelCase root element. */
export const NAMESPACE_BASE = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/';

/** Namespace and schema file of a v4.4 root element. */
export function schemaOf(root: string): { root: string; namespace: string; xsdFile: string } {
  return {
    root,
    namespace: NAMESPACE_BASE + root.charAt(0).toLowerCase() + root.slice(1),
    xsdFile: `${root}_V4.4.xsd`,
  };
}

/** Every CondicionVenta of Hacienda's list but the ones named. */
export function conditionsExcept(...left: CondicionVenta[]): readonly CondicionVenta[] {
  return (Object.keys(CONDICIONES_VENTA) as CondicionVenta[]).filter((c) => !left.includes(c));
}
