// Nota de débito electrónica (02): adds to a document already issued; POST
// /api/v1/invoices/{id}/debit-notes (api/routes/invoices/notes.ts).
import { conditionsExcept, schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

export const NOTA_DEBITO: DocumentTypeDescriptor = {
  code: '02',
  name: { es: 'Nota de débito electrónica', en: 'Electronic debit note' },
  rules: '02',
  conditions: conditionsExcept(),
  xml: {
    ...schemaOf('NotaDebitoElectronica'),
    writer: 'comprobante',
    activityCode: 'optional',
    receptorActivityCode: true,
    receptor: 'optional',
    tipoTransaccion: true,
    partidaArancelaria: true,
    minReferencias: 1,
  },
  request: { form: 'note', receptor: 'optional', tariffCodes: false, article: 'a nota de débito' },
  parties: 'sale',
  booking: 'sale',
  referencesIvaReturned: true,
  checks: ['totals'],
  answerable: true,
};
