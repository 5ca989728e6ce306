// The catalogue of Hacienda rejection texts we can explain: each entry recognises a row (by code
// and/or literal text, rejection texts seen in Hacienda's answers) and says in Spanish and English what happened and what to fix.
// Order matters: the first match wins, so specific texts come before broad ones. Texts not listed
// here fall back to Hacienda's own words (see rejection-reasons.ts).
import { BUSINESS_RULE_ENTRIES, SIGNATURE_RULE_ENTRIES } from './rejection-catalogue-rules.ts';
import { SCHEMA_ENTRIES } from './rejection-catalogue-schema.ts';
import { code, text } from './rejection-entry.ts';
import type { Entry } from './rejection-entry.ts';

export type { Bilingual, Explanation } from './rejection-entry.ts';

export const CATALOGUE: Entry[] = [
  {
    id: 'duplicate-clave',
    // Not -99: its consecutivo text also says "ya existe en nuestras bases de datos".
    match: (row) =>
      row.code !== -99 && !/numeraci[oó]n consecutiva/i.test(row.message)
        ? /ya fue recibido anteriormente|XML ya existe en nuestras bases de datos/i.exec(row.message)
        : null,
    explain: () => ({
      readable: {
        es: 'Hacienda ya había recibido un comprobante con esta misma clave.',
        en: 'Hacienda had already received a document with this same clave.',
      },
      fix: {
        es: 'No reenvíe con otra clave: consulte el estado de la clave original y use esa respuesta.',
        en: 'Do not resend under a new clave: query the status of the original clave and use that answer.',
      },
    }),
  },
  {
    id: 'signature-modified',
    match: text(/modificado luego de haber sido firmado/i),
    explain: () => ({
      readable: {
        es: 'La firma no es válida porque el XML cambió después de firmarlo.',
        en: 'The signature is invalid because the XML changed after it was signed.',
      },
      fix: {
        es: 'Envíe exactamente los bytes firmados: no reformatee, no cambie la codificación ni quite la declaración XML después de firmar.',
        en: 'Send exactly the signed bytes: do not reformat, re-encode or strip the XML declaration after signing.',
      },
    }),
  },
  {
    id: 'signer-not-emisor',
    match: text(/contribuyente que firma .*no es el emisor/i),
    explain: () => ({
      readable: {
        es: 'El certificado que firmó el comprobante pertenece a otro contribuyente, no al emisor.',
        en: 'The certificate that signed the document belongs to another taxpayer, not the emisor.',
      },
      fix: {
        es: 'Firme con la llave criptográfica (.p12) del emisor del comprobante, o corrija la identificación del emisor.',
        en: "Sign with the emisor's own cryptographic key (.p12), or correct the emisor identification.",
      },
    }),
  },
  ...SIGNATURE_RULE_ENTRIES,
  {
    id: 'signature-invalid',
    match: text(/firma del comprobante electr[oó]nico no es v[aá]lida/i),
    explain: () => ({
      readable: {
        es: 'La firma digital XAdES del comprobante no es válida.',
        en: "The document's XAdES digital signature is not valid.",
      },
      fix: {
        es: 'Revise la llave criptográfica (vigente, no revocada), la política de firma v4.4 y las referencias; vuelva a firmar y emita un comprobante nuevo.',
        en: 'Check the cryptographic key (current, not revoked), the v4.4 signature policy and the references; sign again and issue a new document.',
      },
    }),
  },
  {
    id: 'signum-one',
    match: text(/Signum One/i),
    explain: () => ({
      readable: {
        es: 'Falla interna de Hacienda al validar la firma (servicio Signum One).',
        en: "Hacienda's own signature-validation service (Signum One) failed.",
      },
      fix: {
        es: 'No es un error del comprobante: espere y vuelva a consultar o reenvíe más tarde.',
        en: 'Not a fault in the document: wait, then query again or resend later.',
      },
    }),
  },
  {
    id: 'duplicate-consecutivo',
    match: code(-99, /numeraci[oó]n consecutiva.*ya existe/i),
    explain: () => ({
      readable: {
        es: 'El número consecutivo ya fue usado por otro comprobante del mismo emisor, sucursal, terminal y tipo.',
        en: 'The consecutive number was already used by another document of the same emisor, branch, terminal and type.',
      },
      fix: {
        es: 'Emita el comprobante de nuevo con el siguiente consecutivo libre; nunca reutilice un número.',
        en: 'Issue the document again with the next free consecutive number; never reuse a number.',
      },
    }),
  },
  {
    id: 'ubicacion',
    match: code(-37, /provincia, cant[oó]n y distrito del 'emisor'/i),
    explain: () => ({
      readable: {
        es: 'La provincia, cantón y distrito del emisor no coinciden con los registrados en Tributación.',
        en: "The emisor's province, canton and district do not match those registered with the tax administration.",
      },
      fix: {
        es: 'Use en Emisor/Ubicacion los códigos de su registro tributario, o actualice su domicilio en Hacienda.',
        en: 'Use the codes from your tax registration in Emisor/Ubicacion, or update your address with Hacienda.',
      },
    }),
  },
  {
    id: 'hora-oficial',
    match: code(-53, /hora oficial/i),
    explain: () => ({
      readable: {
        es: 'La fecha y hora de emisión no concuerdan con la hora oficial de Hacienda.',
        en: "The issue date and time do not agree with Hacienda's official clock.",
      },
      fix: {
        es: 'Sincronice el reloj del servidor (NTP), use la zona -06:00 y envíe el comprobante al emitirlo.',
        en: 'Synchronise the server clock (NTP), use the -06:00 offset and send the document when it is issued.',
      },
    }),
  },
  {
    id: 'extemporaneo',
    match: code(-16, /extempor[aá]ne/i),
    explain: () => ({
      readable: {
        es: 'El comprobante se envió fuera del plazo permitido después de su emisión.',
        en: 'The document was sent after the allowed period following its issue date.',
      },
      fix: {
        es: 'Envíe los comprobantes en cuanto se emiten; si hubo contingencia, siga el procedimiento de contingencia.',
        en: 'Send documents as soon as they are issued; after an outage follow the contingency procedure.',
      },
    }),
  },
  ...BUSINESS_RULE_ENTRIES,
  {
    id: 'totals',
    match: code(-111, /no coincide/i),
    explain: (row) => {
      const goodsServices = /servicio|mercanc/i.test(row.message);
      const fm = /campo ([A-Z][\w/]+)|\(([A-Z][A-Za-z]+)\)/.exec(row.message);
      const field = fm?.[1] ?? fm?.[2];
      const f = field ? ` (${field})` : '';
      return {
        readable: {
          es: `Un total del comprobante${f} no coincide con el cálculo de Hacienda a partir de las líneas.`,
          en: `A document total${f} does not match Hacienda's calculation from the lines.`,
        },
        fix: goodsServices
          ? {
              es: 'Clasifique cada línea como servicio o mercancía según su unidad de medida/CABYS y sume cada grupo en su total; recalcule con 5 decimales.',
              en: 'Classify each line as a service or goods by its unit/CABYS code and add each group to its own total; recompute with 5 decimals.',
            }
          : {
              es: 'Recalcule cada línea (cantidad × precio, descuentos, impuesto sobre la base) con 5 decimales y derive los totales de las líneas redondeadas.',
              en: 'Recompute each line (quantity × price, discounts, tax on the base) with 5 decimals and derive the totals from the rounded lines.',
            },
      };
    },
  },
  {
    id: 'tipo-documento',
    match: text(/tipo de documento no corresponde/i),
    explain: () => ({
      readable: {
        es: 'El tipo de documento de la clave y el consecutivo no corresponde al tipo del XML.',
        en: "The document type in the clave and consecutivo does not match the XML's document type.",
      },
      fix: {
        es: 'Use en el consecutivo el código del tipo de comprobante del XML (01 factura, 03 nota de crédito, 04 tiquete…).',
        en: "Use the XML's document-type code in the consecutivo (01 invoice, 03 credit note, 04 ticket…).",
      },
    }),
  },
  {
    id: 'request-mismatch',
    match: text(/enviada en la solicitud no corresponde/i),
    explain: () => ({
      readable: {
        es: 'La clave o el emisor enviados junto al comprobante no coinciden con los del XML.',
        en: 'The clave or emisor sent with the document do not match those in the XML.',
      },
      fix: {
        es: 'Envíe en la solicitud la misma clave e identificación del emisor que contiene el XML firmado.',
        en: 'Send the same clave and emisor identification as the signed XML contains.',
      },
    }),
  },
  {
    id: 'clave-mismatch',
    match: text(/\bclave\b.*no corresponde|no corresponde.*\bclave\b/i),
    explain: (row) => ({
      readable: {
        es: `La clave numérica no es coherente con el comprobante: ${row.message}`,
        en: `The clave is inconsistent with the document: ${row.message}`,
      },
      fix: {
        es: 'Construya la clave con el mismo consecutivo, la identificación del emisor y la fecha de emisión del XML.',
        en: "Build the clave from the XML's own consecutivo, emisor identification and issue date.",
      },
    }),
  },
  ...SCHEMA_ENTRIES,
];
