// Factura Electrónica v4.4 (tipo 01): the unsigned XML of an FE. The shared comprobante builder
// does the work; this module fixes the kind and the stricter input type (activity code and an
// identified receptor are mandatory in an FE).
import { buildComprobanteXml } from './comprobante.ts';
import type { FacturaDocument } from './types.ts';

export type { FacturaDocument } from './types.ts';

/**
 * `<?xml version="1.0" encoding="utf-8"?>` + `<FacturaElectronica xmlns="…/v4.4/facturaElectronica">`
 * with every child in XSD order and no signature yet.
 */
export function buildFacturaXml(doc: FacturaDocument): string {
  return buildComprobanteXml('FacturaElectronica', doc);
}
