// Catalogue entries for business-rule and signature-requirement rejections. Hacienda does not
// publish these codes and texts (only what was seen in its answers is known), so each entry is marked
// `confirmed: false`: it recognises the code and wording the local simulator uses (codes in
// Hacienda's style, texts in its register) and the key words a real answer would share. When
// Hacienda's own wording is seen, adjust the match here; the explanation stays valid.
import { code, text } from './rejection-entry.ts';
import type { Entry } from './rejection-entry.ts';

const entry = (
  id: string,
  match: Entry['match'],
  es: [readable: string, fix: string],
  en: [readable: string, fix: string],
): Entry => ({
  id,
  confirmed: false,
  match,
  explain: () => ({ readable: { es: es[0], en: en[0] }, fix: { es: es[1], en: en[1] } }),
});

/** -111 rows with a specific cause, placed before the generic totals entry. */
const both = (c: number, re: RegExp) => (row: { code: number | null; message: string }) =>
  row.code === c && re.test(row.message);

export const SIGNATURE_RULE_ENTRIES: Entry[] = [
  entry(
    'signature-policy',
    text(/no es v[aá]lida \(La pol[ií]tica de firma/i),
    [
      'La firma no usa la política de firma de la versión 4.4 (identificador o resumen distintos).',
      'Firme con la política de la resolución vigente y su resumen SHA-256 publicado en el Anexo 2.',
    ],
    [
      'The signature does not use the v4.4 signature policy (identifier or digest differ).',
      'Sign with the current resolution policy and its SHA-256 digest published in Anexo 2.',
    ],
  ),
  entry(
    'signer-role',
    text(/no es v[aá]lida \(El rol del firmante/i),
    ['La firma no declara el rol "Emisor" del firmante.', 'Firme con ClaimedRole "Emisor".'],
    ['The signature does not claim the signer role "Emisor".', 'Sign with ClaimedRole "Emisor".'],
  ),
  entry(
    'signing-time',
    text(/no es v[aá]lida \(La (firma no indica la fecha|fecha y hora de firmado)/i),
    [
      'La fecha y hora de firmado falta, está adelantada a la hora oficial o es anterior a la emisión.',
      'Sincronice el reloj del servidor (NTP) y firme el comprobante después de emitirlo, al enviarlo.',
    ],
    [
      "The signing time is missing, ahead of Hacienda's clock or before the issue date.",
      'Synchronise the server clock (NTP) and sign the document after issuing it, when sending it.',
    ],
  ),
  entry(
    'certificate-untrusted',
    text(/no es v[aá]lida \(El certificado no fue emitido/i),
    [
      'El certificado de la firma no fue emitido por una autoridad que Hacienda reconozca.',
      'Firme con la llave criptográfica que Hacienda generó para el emisor (o un certificado de firma digital reconocido).',
    ],
    [
      'The signing certificate was not issued by an authority Hacienda recognises.',
      'Sign with the cryptographic key Hacienda generated for the emisor (or a recognised digital-signature certificate).',
    ],
  ),
  entry(
    'certificate-not-current',
    text(/no es v[aá]lida \(El certificado no estaba vigente/i),
    [
      'El certificado de la firma estaba vencido o aún no era válido cuando se firmó.',
      'Genere una llave criptográfica nueva y cárguela; vuelva a emitir el comprobante.',
    ],
    [
      'The signing certificate had expired or was not yet valid when the document was signed.',
      'Generate a new cryptographic key, upload it and issue the document again.',
    ],
  ),
];

export const BUSINESS_RULE_ENTRIES: Entry[] = [
  entry(
    'receptor-ubicacion',
    code(-38, /cant[oó]n y distrito del 'receptor'/i),
    [
      'La provincia, cantón o distrito del receptor no existe en la codificación de ubicación.',
      'Corrija la dirección del cliente con códigos válidos de provincia, cantón y distrito.',
    ],
    [
      "The receptor's province, canton or district code does not exist.",
      "Correct the client's address with valid province, canton and district codes.",
    ],
  ),
  entry(
    'cabys',
    code(-40, /CAByS/i),
    [
      'El código CABYS de una línea no tiene 13 dígitos o no existe en el catálogo de Hacienda.',
      'Use en el servicio o producto un código vigente del catálogo CABYS.',
    ],
    [
      "A line's CABYS code is not 13 digits or is not in Hacienda's catalogue.",
      'Give the service or product a current code from the CABYS catalogue.',
    ],
  ),
  entry(
    'actividad-economica',
    code(-41, /actividad econ[oó]mica/i),
    [
      'El código de actividad económica no tiene 6 dígitos.',
      'Use el código de actividad inscrito en Hacienda, con ceros a la izquierda hasta 6 dígitos.',
    ],
    [
      'The economic activity code is not 6 digits.',
      'Use the activity code registered with Hacienda, zero-padded to 6 digits.',
    ],
  ),
  entry(
    'tarifa-iva',
    code(-42, /tarifa del impuesto/i),
    [
      'La tarifa de IVA de una línea no corresponde a su código de tarifa.',
      'Escriba en Tarifa el porcentaje del CodigoTarifaIVA (por ejemplo 13.00 para el código 08).',
    ],
    [
      "A line's IVA rate does not match its rate code.",
      "Write the rate code's percentage in Tarifa (for example 13.00 for code 08).",
    ],
  ),
  entry(
    'tarifa-tipo-documento',
    code(-43, /c[oó]digo de tarifa .* no est[aá] permitido/i),
    [
      'Una línea usa un código de tarifa de IVA que este tipo de comprobante no admite.',
      'Las tarifas transitorias 05 y 06 solo se usan en notas de crédito y débito, y la 07 ya no se usa.',
    ],
    [
      'A line uses an IVA rate code this document type does not allow.',
      'Transitional rates 05 and 06 are for credit and debit notes only; 07 is no longer used.',
    ],
  ),
  entry(
    'identificacion',
    code(-44, /identificaci[oó]n del/i),
    [
      'Un número de identificación no cumple el formato de su tipo (nota 4).',
      'Física: 9 dígitos sin cero inicial; jurídica: 10 caracteres; DIMEX: 11 o 12 dígitos; NITE: 10 dígitos; sin guiones.',
    ],
    [
      'An identification number does not follow the format of its type (Nota 4).',
      'Física: 9 digits, no leading zero; jurídica: 10 characters; DIMEX: 11 or 12 digits; NITE: 10 digits; no dashes.',
    ],
  ),
  entry(
    'tipo-cambio',
    code(-45, /tipo de cambio/i),
    [
      'El tipo de cambio no es válido: debe ser 1 en colones y mayor que cero en otra moneda.',
      'Use tipo de cambio 1 para CRC y el tipo de referencia del día para otras monedas.',
    ],
    [
      'The exchange rate is not valid: it must be 1 for colones and above zero otherwise.',
      "Use exchange rate 1 for CRC and the day's reference rate for other currencies.",
    ],
  ),
  entry(
    'plazo-credito',
    code(-46, /PlazoCredito/i),
    [
      'Una venta a crédito no indica el plazo del crédito.',
      'Indique los días de crédito (por ejemplo credito_30) en las ventas a crédito.',
    ],
    [
      'A credit sale does not state the credit term.',
      'State the credit days (e.g. credito_30) on credit sales.',
    ],
  ),
  entry(
    'otros-99',
    code(-47, /99 \(Otros\)/i),
    [
      'Se usó el código 99 (Otros) sin describirlo en el campo correspondiente.',
      'Cuando use el código 99, describa la condición, el medio de pago o el código en su campo "Otros".',
    ],
    [
      'Code 99 (Other) was used without its description.',
      'When using code 99, describe the condition, payment method or code in its "Otros" field.',
    ],
  ),
  entry(
    'medio-pago',
    (row) => row.code === -48 || both(-111, /TotalMedioPago/)(row),
    [
      'Los montos de los medios de pago faltan o no suman el total del comprobante.',
      'Con más de un medio de pago indique el monto de cada uno; la suma debe ser el total del comprobante.',
    ],
    [
      'The payment method amounts are missing or do not add up to the document total.',
      "With several payment methods give each one's amount; they must add up to the document total.",
    ],
  ),
  entry(
    'desglose-impuestos',
    both(-111, /desglose de impuestos/i),
    [
      'El desglose de impuestos del resumen no lista cada impuesto de las líneas exactamente una vez.',
      'Incluya en TotalDesgloseImpuesto una entrada por cada código e impuesto de tarifa usado en las líneas.',
    ],
    [
      "The summary's tax breakdown does not list each tax of the lines exactly once.",
      'List in TotalDesgloseImpuesto one entry per tax code and rate used on the lines.',
    ],
  ),
  entry(
    'exoneracion',
    (row) => row.code === -50 || both(-111, /MontoExoneracion|total exonerado/i)(row),
    [
      'Una exoneración no es válida: tarifa exonerada mayor que la del impuesto, fecha posterior al comprobante o montos que no coinciden.',
      'Revise el documento de exoneración del cliente (tarifa y fecha) y recalcule el monto exonerado sobre la base imponible.',
    ],
    [
      'An exoneration is not valid: exonerated rate above the tax rate, dated after the document, or amounts that do not match.',
      "Check the client's exoneration document (rate and date) and recompute the exonerated amount on the taxable base.",
    ],
  ),
  entry(
    'otros-cargos',
    (row) => row.code === -51 || both(-111, /MontoCargo/)(row),
    [
      'Un cargo adicional no es válido: cobro de un tercero sin sus datos, o monto que no corresponde al porcentaje.',
      'En cargos de tipo 04 indique identificación y nombre del tercero; el monto debe ser el porcentaje indicado.',
    ],
    [
      'An additional charge is not valid: a third-party charge without its details, or an amount that does not match its percentage.',
      'For type 04 charges give the third party id and name; the amount must be the stated percentage.',
    ],
  ),
  entry(
    'numero-linea',
    code(-52, /NumeroLinea/),
    [
      'Las líneas del detalle no están numeradas 1, 2, 3… en orden.',
      'Numere las líneas consecutivamente desde 1.',
    ],
    ['The detail lines are not numbered 1, 2, 3… in order.', 'Number the lines consecutively from 1.'],
  ),
  entry(
    'referencia',
    code(-54, /informaci[oó]n de referencia/i),
    [
      'Una referencia no es válida: el número no es la clave de un comprobante del tipo indicado o su fecha es posterior.',
      'Use la clave de 50 caracteres del comprobante referido y su fecha de emisión real.',
    ],
    [
      'A reference is not valid: its number is not the clave of a document of the stated type, or it is dated later.',
      "Use the referenced document's 50-character clave and its real issue date.",
    ],
  ),
  entry(
    'exportacion',
    code(-55, /exportaci[oó]n|partida arancelaria/i),
    [
      'La factura de exportación no cumple sus reglas: receptor extranjero (tipo 05) con su dirección en el extranjero, tarifa 0% (código 01) en cada línea y partidas arancelarias de 12 dígitos.',
      'Emita la exportación a un cliente con identificación tipo 05 y dirección extranjera; las líneas llevan IVA con código de tarifa 01.',
    ],
    [
      'The export invoice breaks its rules: a foreign receptor (type 05) with its foreign address, the 0% rate (code 01) on every line and 12-digit tariff headings.',
      'Issue the export to a client with identification type 05 and a foreign address; lines carry IVA with rate code 01.',
    ],
  ),
];
