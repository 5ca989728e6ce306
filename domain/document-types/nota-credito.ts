// Nota de crédito electrónica (03): reverses part or all of a document already issued; POST
// /api/v1/invoices/{id}/credit-notes and /api/v1/credit-notes.
import { conditionsExcept, schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

export const NOTA_CREDITO: DocumentTypeDescriptor = {
  code: '03',
  name: { es: 'Nota de crédito electrónica', en: 'Electronic credit note' },
  rules: '03',
  conditions: conditionsExcept(),
  xml: {
    ...schemaOf('NotaCreditoElectronica'),
    writer: 'comprobante',
    activityCode: 'optional',
    receptorActivityCode: true,
    receptor: 'optional',
    tipoTransaccion: true,
    partidaArancelaria: true,
    minReferencias: 1,
  },
  request: { form: 'note', receptor: 'optional', tariffCodes: false, article: 'a nota de crédito' },
  parties: 'sale',
  booking: 'credit',
  referencesIvaReturned: true,
  checks: ['totals'],
  answerable: true,
};
