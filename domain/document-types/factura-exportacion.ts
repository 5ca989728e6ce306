// Factura electrónica de exportación (09): a sale to a foreign receptor (identification type 05
// and a foreign address, no Ubicacion), its lines taxed with IVA only at the exports' 0% rate
// (CodigoTarifaIVA 01), each with an optional PartidaArancelaria.
import { conditionsExcept, schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

export const FACTURA_EXPORTACION: DocumentTypeDescriptor = {
  code: '09',
  name: { es: 'Factura electrónica de exportación', en: 'Electronic export invoice' },
  rules: '09',
  conditions: conditionsExcept('09', '11', '12'),
  xml: {
    ...schemaOf('FacturaElectronicaExportacion'),
    writer: 'comprobante',
    activityCode: 'required',
    receptorActivityCode: false,
    receptor: 'optional',
    tipoTransaccion: true,
    partidaArancelaria: true,
    minReferencias: 0,
    layout: 'exportacion',
  },
  request: {
    form: 'invoice',
    receptor: 'foreign',
    tariffCodes: true,
    article: 'a factura de exportación',
  },
  parties: 'sale',
  booking: 'sale',
  referencesIvaReturned: false,
  checks: ['exportacion', 'totals'],
  answerable: false,
};
