// One detail line of a comprobante as the service keeps it: the numeric inputs of the totals
// (domain/totals.ts) plus what the document says about the item. db/ stores it with the invoice
// and hacienda/xml/ writes it into the XML, so it lives here, below both.
import type { TipoCodigoComercial, TipoTransaccion } from './codes.ts';
import type { LineInput } from './totals.ts';

export interface CommercialCode {
  type: TipoCodigoComercial;
  /** Up to 20 characters. */
  code: string;
}

/** A detail line: the numeric inputs of the totals plus what the document says about the item. */
export interface DocumentLine extends LineInput {
  /** CodigoCABYS, 13 digits. */
  cabys: string;
  /** Detalle, 3-200 characters. */
  description: string;
  /** 0-5 commercial codes. */
  commercialCodes?: readonly CommercialCode[];
  /** FE/NC/ND only. */
  transactionType?: TipoTransaccion;
  /** UnidadMedidaComercial, up to 20 characters (e.g. "Caja 12"). */
  commercialUnit?: string;
  /** NumeroVINoSerie, up to 17 characters each. */
  serialNumbers?: readonly string[];
  registroMedicamento?: string;
  formaFarmaceutica?: string;
  /** NC/ND only: 12-digit tariff heading for exports. */
  partidaArancelaria?: string;
}
