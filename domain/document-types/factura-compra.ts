// Factura electrónica de compra (08): the company buys from an informal or foreign supplier and
// issues the document itself, as its receptor (the clave carries the buyer's identification and
// the buyer signs); the supplier, the emisor, may have no Costa Rican address. Issued through
// POST /api/v1/invoices with a `supplier` (domain/purchase-request.ts); booked as an expense.
import { conditionsExcept, schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

export const FACTURA_COMPRA: DocumentTypeDescriptor = {
  code: '08',
  name: { es: 'Factura electrónica de compra', en: 'Electronic purchase invoice' },
  rules: '08',
  conditions: conditionsExcept('09', '11', '12'),
  xml: {
    ...schemaOf('FacturaElectronicaCompra'),
    writer: 'comprobante',
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
  request: {
    form: 'purchase',
    receptor: 'required',
    tariffCodes: false,
    article: 'a factura electrónica de compra',
  },
  parties: 'purchase',
  booking: 'purchase',
  referencesIvaReturned: false,
  checks: ['purchase', 'totals'],
  answerable: false,
};
