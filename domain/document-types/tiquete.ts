// Tiquete electrónico (04): a sale whose receptor is optional; sold to no one, it is a cash sale
// paid at issue. Its schema has no CodigoActividadReceptor and no TipoTransaccion.
import { conditionsExcept, schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

export const TIQUETE: DocumentTypeDescriptor = {
  code: '04',
  name: { es: 'Tiquete electrónico', en: 'Electronic ticket' },
  rules: '04',
  conditions: conditionsExcept('09', '11', '12'),
  xml: {
    ...schemaOf('TiqueteElectronico'),
    writer: 'comprobante',
    activityCode: 'required',
    receptorActivityCode: false,
    receptor: 'optional',
    tipoTransaccion: false,
    partidaArancelaria: false,
    minReferencias: 0,
  },
  request: { form: 'invoice', receptor: 'optional', tariffCodes: false, article: 'a tiquete electrónico' },
  parties: 'sale',
  booking: 'sale',
  referencesIvaReturned: false,
  checks: ['totals'],
  answerable: true,
};
