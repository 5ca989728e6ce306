// Factura electrónica (01): the company's sale to an identified client, issued through
// POST /api/v1/invoices (the default document_type).
import { CONDICIONES_VENTA_FE } from '../codes.ts';
import { schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

export const FACTURA: DocumentTypeDescriptor = {
  code: '01',
  name: { es: 'Factura electrónica', en: 'Electronic invoice' },
  rules: '01',
  // 09 and 11 are only for the recibo electrónico de pago.
  conditions: CONDICIONES_VENTA_FE,
  xml: {
    ...schemaOf('FacturaElectronica'),
    writer: 'comprobante',
    activityCode: 'required',
    receptorActivityCode: true,
    receptor: 'required',
    tipoTransaccion: true,
    partidaArancelaria: false,
    minReferencias: 0,
  },
  request: { form: 'invoice', receptor: 'required', tariffCodes: false, article: 'a factura electrónica' },
  parties: 'sale',
  booking: 'sale',
  referencesIvaReturned: false,
  checks: ['totals'],
  answerable: true,
};
