// The comprobante kinds this builder writes: root element, namespace, schema file and the few
// structural differences between them (2026 XSD set, NOTES §4.1 and §4.7). Adding a kind is one
// row here; the line, party and summary writers are shared.
import type { TipoComprobante } from '../../domain/codes.ts';

/** Every v4.4 namespace is this prefix plus the lowerCamelCase document name. */
export const NAMESPACE_BASE = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/';
export const XMLDSIG_NAMESPACE = 'http://www.w3.org/2000/09/xmldsig#';

export type ComprobanteKind =
  | 'FacturaElectronica'
  | 'NotaDebitoElectronica'
  | 'NotaCreditoElectronica'
  | 'TiqueteElectronico'
  | 'FacturaElectronicaExportacion'
  | 'FacturaElectronicaCompra'
  | 'ReciboElectronicoPago';

export interface ComprobanteKindInfo {
  /** Positions 9-10 of the consecutivo. */
  docType: TipoComprobante;
  root: ComprobanteKind;
  namespace: string;
  /** Schema file name inside the XSD set directory. */
  xsdFile: string;
  /** CodigoActividadEmisor cardinality. */
  activityCode: 'required' | 'optional';
  /** Whether CodigoActividadReceptor exists in this schema. */
  receptorActivityCode: boolean;
  receptor: 'required' | 'optional';
  /** Whether LineaDetalle has TipoTransaccion. */
  tipoTransaccion: boolean;
  /** Whether LineaDetalle has PartidaArancelaria (before CodigoCABYS). */
  partidaArancelaria: boolean;
  /** Minimum number of InformacionReferencia elements (maximum is 10 everywhere). */
  minReferencias: number;
  /**
   * `exportacion`: the FEE's reduced shapes. Receptor without Ubicacion (a foreign address goes in
   * OtrasSenasExtranjero); LineaDetalle without BaseImponible, ImpuestoAsumidoEmisorFabrica,
   * ImpuestoNeto and Exoneracion; ResumenFactura without the exonerado / no sujeto totals and
   * TotalIVADevuelto. Absent: the FE's shapes.
   */
  layout?: 'exportacion';
  /**
   * The party whose identification the clave carries, the issuer who signs (default `emisor`).
   * A factura electrónica de compra is issued and signed by its receptor, the buyer.
   */
  issuer?: 'emisor' | 'receptor';
  /** Emisor/Ubicacion cardinality (default required); the FEC's emisor may be a foreign supplier. */
  emisorUbicacion?: 'required' | 'optional';
  /** Whether LineaDetalle has ImpuestoAsumidoEmisorFabrica (default true). */
  impuestoAsumido?: boolean;
}

export const COMPROBANTE_KINDS: Readonly<Record<ComprobanteKind, ComprobanteKindInfo>> = {
  FacturaElectronica: {
    docType: '01',
    root: 'FacturaElectronica',
    namespace: `${NAMESPACE_BASE}facturaElectronica`,
    xsdFile: 'FacturaElectronica_V4.4.xsd',
    activityCode: 'required',
    receptorActivityCode: true,
    receptor: 'required',
    tipoTransaccion: true,
    partidaArancelaria: false,
    minReferencias: 0,
  },
  NotaDebitoElectronica: {
    docType: '02',
    root: 'NotaDebitoElectronica',
    namespace: `${NAMESPACE_BASE}notaDebitoElectronica`,
    xsdFile: 'NotaDebitoElectronica_V4.4.xsd',
    activityCode: 'optional',
    receptorActivityCode: true,
    receptor: 'optional',
    tipoTransaccion: true,
    partidaArancelaria: true,
    minReferencias: 1,
  },
  NotaCreditoElectronica: {
    docType: '03',
    root: 'NotaCreditoElectronica',
    namespace: `${NAMESPACE_BASE}notaCreditoElectronica`,
    xsdFile: 'NotaCreditoElectronica_V4.4.xsd',
    activityCode: 'optional',
    receptorActivityCode: true,
    receptor: 'optional',
    tipoTransaccion: true,
    partidaArancelaria: true,
    minReferencias: 1,
  },
  TiqueteElectronico: {
    docType: '04',
    root: 'TiqueteElectronico',
    namespace: `${NAMESPACE_BASE}tiqueteElectronico`,
    xsdFile: 'TiqueteElectronico_V4.4.xsd',
    activityCode: 'required',
    receptorActivityCode: false,
    receptor: 'optional',
    tipoTransaccion: false,
    partidaArancelaria: false,
    minReferencias: 0,
  },
  FacturaElectronicaExportacion: {
    docType: '09',
    root: 'FacturaElectronicaExportacion',
    namespace: `${NAMESPACE_BASE}facturaElectronicaExportacion`,
    xsdFile: 'FacturaElectronicaExportacion_V4.4.xsd',
    activityCode: 'required',
    receptorActivityCode: false,
    receptor: 'optional',
    tipoTransaccion: true,
    partidaArancelaria: true,
    minReferencias: 0,
    layout: 'exportacion',
  },
  FacturaElectronicaCompra: {
    docType: '08',
    root: 'FacturaElectronicaCompra',
    namespace: `${NAMESPACE_BASE}facturaElectronicaCompra`,
    xsdFile: 'FacturaElectronicaCompra_V4.4.xsd',
    activityCode: 'optional',
    receptorActivityCode: true,
    receptor: 'required',
    tipoTransaccion: true,
    partidaArancelaria: false,
    minReferencias: 1,
    issuer: 'receptor',
    emisorUbicacion: 'optional',
    impuestoAsumido: false,
  },
  // The REP's reduced layout is written by receipt.ts; this row gives its type, root and schema.
  ReciboElectronicoPago: {
    docType: '10',
    root: 'ReciboElectronicoPago',
    namespace: `${NAMESPACE_BASE}reciboElectronicoPago`,
    xsdFile: 'ReciboElectronicoPago_V4.4.xsd',
    activityCode: 'optional',
    receptorActivityCode: false,
    receptor: 'required',
    tipoTransaccion: false,
    partidaArancelaria: false,
    minReferencias: 1,
  },
};
