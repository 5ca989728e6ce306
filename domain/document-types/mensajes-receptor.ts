// The receptor's messages (05 accepted, 06 partially accepted, 07 rejected): the company's answer
// to a supplier's comprobante (POST /api/v1/received-documents/{id}/answer, domain/received-answer.ts),
// numbered in a series of their own and written by hacienda/xml/mensaje-receptor.ts. They carry no
// lines and book nothing.
import { conditionsExcept, schemaOf, type DocumentTypeDescriptor } from './descriptor.ts';

function mensajeReceptor(
  code: string,
  mensaje: '1' | '2' | '3',
  name: DocumentTypeDescriptor['name'],
): DocumentTypeDescriptor {
  return {
    code,
    name,
    rules: '01',
    conditions: conditionsExcept(),
    xml: {
      ...schemaOf('MensajeReceptor'),
      writer: 'mensaje-receptor',
      activityCode: 'optional',
      receptorActivityCode: false,
      receptor: 'required',
      tipoTransaccion: false,
      partidaArancelaria: false,
      minReferencias: 0,
    },
    request: null,
    parties: 'answer',
    booking: 'none',
    referencesIvaReturned: false,
    checks: [],
    answerable: false,
    mensaje,
  };
}

export const ACEPTACION = mensajeReceptor('05', '1', {
  es: 'Confirmación de aceptación del comprobante electrónico',
  en: 'Acceptance of the electronic document',
});
export const ACEPTACION_PARCIAL = mensajeReceptor('06', '2', {
  es: 'Confirmación de aceptación parcial del comprobante electrónico',
  en: 'Partial acceptance of the electronic document',
});
export const RECHAZO = mensajeReceptor('07', '3', {
  es: 'Confirmación de rechazo del comprobante electrónico',
  en: 'Rejection of the electronic document',
});
