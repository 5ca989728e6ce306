// The catalogue of Hacienda rejection texts we can explain: each entry recognises a row (by its code
// AND its text, or by its text alone for free-text messages, which carry no code; wordings in
// SOURCES.md) and says in Spanish and English what happened, which field to fix and how.
// Order matters: the first match wins, so specific texts come before broad ones. Texts not listed
// here fall back to Hacienda's own words (see rejection-reasons.ts).
import { HACIENDA_ENTRIES } from './rejection-catalogue-hacienda.ts';
import { BUSINESS_RULE_ENTRIES, SIGNATURE_RULE_ENTRIES } from './rejection-catalogue-rules.ts';
import { SCHEMA_ENTRIES } from './rejection-catalogue-schema.ts';
import { fixed, text } from './rejection-entry.ts';
import type { Entry } from './rejection-entry.ts';

export type { Bilingual, Explanation } from './rejection-entry.ts';

const SIGNATURE_ENTRIES: Entry[] = [
  fixed(
    'duplicate-clave',
    'Clave',
    // Not -99: its consecutivo text also says "ya existe en nuestras bases de datos".
    (row) =>
      row.code !== -99 && !/numeraci[oó]n consecutiva/i.test(row.message)
        ? /ya fue recibido anteriormente|XML ya existe en nuestras bases de datos/i.exec(row.message)
        : null,
    [
      'Hacienda ya había recibido un comprobante con esta misma Clave.',
      'No reenvíe con otra Clave: consulte el estado de la Clave original y use esa respuesta.',
    ],
    [
      'Hacienda had already received a document with this same Clave.',
      'Do not resend under a new Clave: query the status of the original Clave and use that answer.',
    ],
  ),
  fixed(
    'signature-modified',
    'Signature',
    text(/modificado luego de haber sido firmado/i),
    [
      'La firma (Signature) no es válida porque el XML cambió después de firmarlo.',
      'Envíe exactamente los bytes firmados: no reformatee, no cambie la codificación ni quite la declaración XML después de crear la Signature.',
    ],
    [
      'The signature (Signature) is invalid because the XML changed after it was signed.',
      'Send exactly the signed bytes: do not reformat, re-encode or strip the XML declaration after creating the Signature.',
    ],
  ),
  fixed(
    'signer-not-emisor',
    'Signature',
    text(/contribuyente que firma .*no es el emisor/i),
    [
      'El certificado de la firma (Signature) pertenece a otro contribuyente, no al emisor del comprobante.',
      'Cree la Signature con la llave criptográfica (.p12) del emisor, o corrija Emisor/Identificacion si el emisor es otro.',
    ],
    [
      'The certificate of the signature (Signature) belongs to another taxpayer, not the emisor of the document.',
      "Create the Signature with the emisor's own cryptographic key (.p12), or correct Emisor/Identificacion if the emisor is another.",
    ],
  ),
  ...SIGNATURE_RULE_ENTRIES,
  fixed(
    'signature-invalid',
    'Signature',
    text(/firma del (comprobante electr[oó]nico|documento) no es v[aá]lida|firma .*no (es )?v[aá]lida/i),
    [
      'La firma digital XAdES (Signature) del comprobante no es válida.',
      'Revise la llave criptográfica (vigente, no revocada), la política de firma v4.4 y las referencias de la Signature; vuelva a firmar y emita un comprobante nuevo.',
    ],
    [
      "The document's XAdES digital signature (Signature) is not valid.",
      'Check the cryptographic key (current, not revoked), the v4.4 signature policy and the Signature references; sign again and issue a new document.',
    ],
  ),
  fixed(
    'signum-one',
    'Signature',
    text(/Signum One/i),
    [
      'Falla interna de Hacienda al validar la firma (Signature) con su servicio Signum One.',
      'No es un error del comprobante ni de su Signature: espere y vuelva a consultar o reenvíe más tarde.',
    ],
    [
      "Hacienda's own signature-validation service (Signum One) failed while checking the Signature.",
      'Not a fault in the document or its Signature: wait, then query again or resend later.',
    ],
  ),
];

const CLAVE_ENTRIES: Entry[] = [
  fixed(
    'tipo-documento',
    'NumeroConsecutivo',
    text(/tipo de documento no corresponde/i),
    [
      'El tipo de documento de la clave y del NumeroConsecutivo no corresponde al tipo del XML.',
      'Use en NumeroConsecutivo el código del tipo de comprobante del XML (01 factura, 03 nota de crédito, 04 tiquete…).',
    ],
    [
      "The document type in the clave and NumeroConsecutivo does not match the XML's document type.",
      "Use the XML's document-type code in NumeroConsecutivo (01 invoice, 03 credit note, 04 ticket…).",
    ],
  ),
  fixed(
    'request-mismatch',
    'Clave',
    text(/enviada en la solicitud no corresponde/i),
    [
      'La Clave o el emisor enviados junto al comprobante no coinciden con los del XML.',
      'Envíe en la solicitud la misma Clave e identificación del emisor que contiene el XML firmado.',
    ],
    [
      'The Clave or emisor sent with the document do not match those in the XML.',
      'Send the same Clave and emisor identification as the signed XML contains.',
    ],
  ),
  {
    id: 'clave-mismatch',
    field: 'Clave',
    match: text(
      /\bclave\b.*no (corresponde|tiene el formato)|no corresponde.*\bclave\b|situaci[oó]n del comprobante/i,
    ),
    explain: (row) => ({
      field: 'Clave',
      readable: {
        es: `La Clave numérica no es coherente con el comprobante: ${row.message}`,
        en: 'The Clave is inconsistent with the document (its date, emisor, consecutivo or situación).',
      },
      fix: {
        es: 'Construya la Clave con el mismo NumeroConsecutivo, la identificación del emisor y la fecha de emisión del XML.',
        en: "Build the Clave from the XML's own NumeroConsecutivo, emisor identification and issue date.",
      },
    }),
  },
];

export const CATALOGUE: Entry[] = [
  ...SIGNATURE_ENTRIES,
  ...HACIENDA_ENTRIES,
  ...BUSINESS_RULE_ENTRIES,
  ...CLAVE_ENTRIES,
  ...SCHEMA_ENTRIES,
];
