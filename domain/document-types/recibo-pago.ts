// Recibo electrónico de pago (10, new in 4.4): issued when a payment settles a credit sale (the
// payments API, db/queries/receipts.ts); its reduced layout (hacienda/xml/receipt.ts) names the
// parties by name, identification and email only. It books nothing: the payment has its own
// entry and the sale it settles was booked when issued.
import { schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

export const RECIBO_PAGO: DocumentTypeDescriptor = {
  code: '10',
  name: { es: 'Recibo electrónico de pago', en: 'Electronic payment receipt' },
  rules: '10',
  conditions: ['09', '11'],
  xml: {
    ...schemaOf('ReciboElectronicoPago'),
    writer: 'recibo',
    activityCode: 'optional',
    receptorActivityCode: false,
    receptor: 'required',
    tipoTransaccion: false,
    partidaArancelaria: false,
    minReferencias: 1,
  },
  request: {
    form: 'receipt',
    receptor: 'required',
    tariffCodes: false,
    article: 'a recibo electrónico de pago',
  },
  parties: 'receipt',
  booking: 'none',
  referencesIvaReturned: false,
  checks: ['receipt'],
  answerable: false,
};
