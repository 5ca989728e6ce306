// Input types of the comprobante builders: everything a v4.4 document says, in our own names.
// Money figures are not repeated here: they come from domain/totals.ts (computeDocumentTotals over
// the same `lines`), which also carries the currency and TipoCambio in `totals.summary`.
import type {
  CodigoReferencia,
  CondicionVenta,
  IdentificationType,
  TipoDocumentoReferencia,
  TipoMedioPago,
} from '../../domain/codes.ts';
import type { DocumentLine } from '../../domain/document-line.ts';
import type { DocumentTotals } from '../../domain/totals.ts';

// A document line is what an invoice line says, stored by db/ and written by the builders here.
export type { CommercialCode, DocumentLine } from '../../domain/document-line.ts';

export interface Ubicacion {
  /** 1 digit, e.g. `1` San José. */
  provincia: string;
  /** 2 digits, e.g. `01`. */
  canton: string;
  /** 2 digits, e.g. `01`. */
  distrito: string;
  /** Free text, 5-50 characters. */
  barrio?: string;
  /** 5-250 characters. */
  otrasSenas: string;
}

export interface Telefono {
  /** Up to 3 digits, e.g. `506`. */
  countryCode: string;
  /** Digits only. */
  number: string;
}

export interface Emisor {
  /** Nombre o razón social, 5-100 characters. */
  name: string;
  idType: IdentificationType;
  idNumber: string;
  /** Registro de bebidas alcohólicas (Ley 8707), when billing alcoholic-beverage CABYS. */
  registroFiscal8707?: string;
  /** 3-80 characters. */
  commercialName?: string;
  ubicacion: Ubicacion;
  /** Foreign address, 5-300 characters: the emisor of a factura de compra only. */
  otrasSenasExtranjero?: string;
  phone?: Telefono;
  /** 1-4 addresses, up to 160 characters each. */
  emails: readonly string[];
}

/**
 * The emisor of a factura electrónica de compra, the supplier: it may be foreign (no Ubicacion,
 * an OtrasSenasExtranjero instead) and have no email (CorreoElectronico 0..4). It travels as an
 * `Emisor`; the writers check for the Ubicacion at run time (document-types.ts `emisorUbicacion`).
 */
export type PurchaseEmisor = Omit<Emisor, 'ubicacion'> & { ubicacion?: Ubicacion };

export interface Receptor {
  /** 3-100 characters. */
  name: string;
  idType: IdentificationType;
  idNumber: string;
  commercialName?: string;
  ubicacion?: Ubicacion;
  /** Foreign address, 5-300 characters. */
  otrasSenasExtranjero?: string;
  phone?: Telefono;
  email?: string;
}

export interface MedioPago {
  type: TipoMedioPago;
  /** MedioPagoOtros, required for type 99 (3-100 characters). */
  other?: string;
  /** TotalMedioPago; required when the document lists more than one payment method. */
  total?: string;
}

export interface Referencia {
  docType: TipoDocumentoReferencia;
  /** Required for docType 99. */
  docTypeOther?: string;
  /** Clave of the referenced e-document or number of a paper one (≤ 50 characters). */
  number?: string;
  issuedAt: Date;
  code?: CodigoReferencia;
  /** Required for code 99. */
  codeOther?: string;
  /** Razón, up to 180 characters. */
  reason?: string;
}

export interface OtroTexto {
  /** Optional `codigo` attribute. */
  code?: string;
  /** Up to 500 characters. */
  text: string;
}

/** Everything needed to write one comprobante (FE, ND, NC or TE). */
export interface ComprobanteDocument {
  clave: string;
  consecutivo: string;
  /** FechaEmision; written in Costa Rica time with `-06:00`. */
  issuedAt: Date;
  /** Cédula of the software provider (ProveedorSistemas), up to 20 characters. */
  proveedorSistemas: string;
  /** CodigoActividadEmisor, 6 characters (required in FE and TE). */
  activityCode?: string;
  /** CodigoActividadReceptor, 6 characters (FE, NC, ND; optional). */
  receptorActivityCode?: string;
  emisor: Emisor;
  receptor?: Receptor;
  condicionVenta: CondicionVenta;
  /** Required for CondicionVenta 99 (5-100 characters). */
  condicionVentaOtros?: string;
  /** Days of credit; required for credit sale conditions (02, 08, 10). */
  plazoCredito?: number;
  /** 0-4 payment methods (MedioPago inside ResumenFactura). */
  mediosPago: readonly MedioPago[];
  lines: readonly DocumentLine[];
  /** computeDocumentTotals(lines, …) of exactly these lines. */
  totals: DocumentTotals;
  /** InformacionReferencia (1-10 in NC/ND). */
  referencias?: readonly Referencia[];
  /** Otros/OtroTexto. */
  otros?: readonly OtroTexto[];
}

/** A Factura Electrónica: the emisor's activity and an identified receptor are mandatory. */
export interface FacturaDocument extends ComprobanteDocument {
  activityCode: string;
  receptor: Receptor;
}

/** A document as the service issues it: its content and its document type's code (domain/document-types/). */
export type IssuedDocument = ComprobanteDocument & { docType: string };
