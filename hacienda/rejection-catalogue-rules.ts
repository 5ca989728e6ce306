// Catalogue entries for the rules whose code and wording Hacienda does not publish: the local
// simulator reports them with code -1 and a plain Spanish sentence (never a code Hacienda uses for
// another check), and these entries recognise those sentences (`confirmed: false`). Signature
// requirements are free text: Hacienda's own "La firma del documento no tiene el Policy Id", and
// "La firma del comprobante electrónico no es válida (…)" with the simulator's cause.
import { coded, fixed, text } from './rejection-entry.ts';
import type { Entry } from './rejection-entry.ts';

const ours = (id: string, field: string, match: Entry['match'], es: [string, string], en: [string, string]) =>
  fixed(id, field, match, es, en, false);
const minus1 = (re: RegExp) => coded(-1, re);

/**
 * One of our rules stated in a plain sentence: the sentence is the Spanish reading, the field the
 * first XML element it names (else `fallback`).
 */
function ownSentence(id: string, fallback: string, re: RegExp, es: string, en: string): Entry {
  return {
    id,
    confirmed: false,
    field: fallback,
    match: minus1(re),
    explain: (row) => {
      const field = /\b([A-Z][a-z]+[A-Z]\w*)/.exec(row.message)?.[1] ?? fallback;
      return {
        field,
        readable: { es: `${es} (${field}): ${row.message}`, en: `${en} (${field}).` },
        fix: {
          es: `Corrija ${field} según el mensaje y emita un comprobante nuevo.`,
          en: `Correct ${field} as the message says and issue a new document.`,
        },
      };
    },
  };
}

export const SIGNATURE_RULE_ENTRIES: Entry[] = [
  fixed(
    'signature-policy-id',
    'SignaturePolicyIdentifier',
    text(/firma del documento no tiene el Policy ?Id/i),
    [
      'La firma no trae el identificador de la política de firma (SignaturePolicyIdentifier de XAdES-EPES).',
      'Firme en XAdES-EPES con SignaturePolicyIdentifier: SigPolicyId con la URL de la política v4.4 y SigPolicyHash con su resumen SHA-256.',
    ],
    [
      'The signature carries no signature policy identifier (the XAdES-EPES SignaturePolicyIdentifier).',
      'Sign as XAdES-EPES with a SignaturePolicyIdentifier: SigPolicyId with the v4.4 policy URL and SigPolicyHash with its SHA-256 digest.',
    ],
  ),
  ours(
    'signature-policy',
    'SignaturePolicyIdentifier',
    text(/no es v[aá]lida \(La pol[ií]tica de firma/i),
    [
      'La firma no usa la política de firma de la versión 4.4 (SignaturePolicyIdentifier con otro identificador o resumen).',
      'Firme con la política de la resolución vigente en SignaturePolicyIdentifier y su resumen SHA-256 publicado en el Anexo 2.',
    ],
    [
      'The signature does not use the v4.4 signature policy (a SignaturePolicyIdentifier with another identifier or digest).',
      'Sign with the current resolution policy in SignaturePolicyIdentifier and its SHA-256 digest published in Anexo 2.',
    ],
  ),
  ours(
    'signer-role',
    'ClaimedRole',
    text(/no es v[aá]lida \(El rol del firmante/i),
    ['La firma no declara el rol "Emisor" del firmante (ClaimedRole).', 'Firme con ClaimedRole "Emisor".'],
    [
      'The signature does not claim the signer role "Emisor" (ClaimedRole).',
      'Sign with ClaimedRole "Emisor".',
    ],
  ),
  ours(
    'signing-time',
    'SigningTime',
    text(/no es v[aá]lida \(La (firma no indica la fecha|fecha y hora de firmado)/i),
    [
      'La fecha y hora de firmado (SigningTime) falta, está adelantada a la hora oficial o es anterior a la emisión.',
      'Sincronice el reloj del servidor (NTP) y firme el comprobante después de emitirlo, al enviarlo, para que SigningTime sea correcto.',
    ],
    [
      "The signing time (SigningTime) is missing, ahead of Hacienda's clock or before the issue date.",
      'Synchronise the server clock (NTP) and sign the document after issuing it, when sending it, so SigningTime is right.',
    ],
  ),
  ours(
    'certificate-untrusted',
    'X509Certificate',
    text(/no es v[aá]lida \(El certificado no fue emitido/i),
    [
      'El certificado de la firma (X509Certificate) no fue emitido por una autoridad que Hacienda reconozca.',
      'Firme con la llave criptográfica que Hacienda generó para el emisor (o un certificado de firma digital reconocido) en X509Certificate.',
    ],
    [
      'The signing certificate (X509Certificate) was not issued by an authority Hacienda recognises.',
      'Sign with the cryptographic key Hacienda generated for the emisor (or a recognised digital-signature certificate) in X509Certificate.',
    ],
  ),
  ours(
    'certificate-not-current',
    'X509Certificate',
    text(/no es v[aá]lida \(El certificado no estaba vigente/i),
    [
      'El certificado de la firma (X509Certificate) estaba vencido o aún no era válido cuando se firmó.',
      'Genere una llave criptográfica nueva, cárguela y emita el comprobante otra vez (su certificado va en X509Certificate).',
    ],
    [
      'The signing certificate (X509Certificate) had expired or was not yet valid when the document was signed.',
      'Generate a new cryptographic key, upload it and issue the document again (its certificate goes in X509Certificate).',
    ],
  ),
];

export const BUSINESS_RULE_ENTRIES: Entry[] = [
  ours(
    'hora-oficial',
    'FechaEmision',
    minus1(/hora oficial/i),
    [
      'La FechaEmision del comprobante está adelantada a la hora oficial de Hacienda.',
      'Sincronice el reloj del servidor (NTP), escriba FechaEmision con la zona -06:00 y envíe el comprobante al emitirlo.',
    ],
    [
      "The document's FechaEmision is ahead of Hacienda's official clock.",
      'Synchronise the server clock (NTP), write FechaEmision with the -06:00 offset and send the document when it is issued.',
    ],
  ),
  ours(
    'receptor-ubicacion',
    'Receptor/Ubicacion',
    minus1(/cant[oó]n y distrito del 'receptor'/i),
    [
      'La provincia, cantón o distrito del receptor (Receptor/Ubicacion) no existe en la codificación de ubicación.',
      'Corrija Receptor/Ubicacion con códigos válidos de provincia, cantón y distrito.',
    ],
    [
      "The receptor's province, canton or district (Receptor/Ubicacion) does not exist.",
      'Correct Receptor/Ubicacion with valid province, canton and district codes.',
    ],
  ),
  ours(
    'cabys',
    'CodigoCABYS',
    text(/CAByS/i),
    [
      'El CodigoCABYS de una línea no tiene 13 dígitos o no existe en el catálogo de Hacienda.',
      'Use en CodigoCABYS un código vigente del catálogo CABYS.',
    ],
    [
      "A line's CodigoCABYS is not 13 digits or is not in Hacienda's catalogue.",
      'Put a current code of the CABYS catalogue in CodigoCABYS.',
    ],
  ),
  ours(
    'actividad-economica',
    'CodigoActividadEmisor',
    minus1(/actividad econ[oó]mica/i),
    [
      'El código de actividad económica (CodigoActividadEmisor / CodigoActividadReceptor) no tiene 6 dígitos.',
      'Use en CodigoActividadEmisor el código de actividad inscrito en Hacienda, con ceros a la izquierda hasta 6 dígitos.',
    ],
    [
      'The economic activity code (CodigoActividadEmisor / CodigoActividadReceptor) is not 6 digits.',
      'Put the activity code registered with Hacienda in CodigoActividadEmisor, zero-padded to 6 digits.',
    ],
  ),
  ours(
    'tarifa-iva',
    'Tarifa',
    minus1(/tarifa del impuesto/i),
    [
      'La Tarifa de IVA de una línea no corresponde a su CodigoTarifaIVA.',
      'Escriba en Tarifa el porcentaje del CodigoTarifaIVA (por ejemplo 13.00 para el código 08).',
    ],
    [
      "A line's IVA Tarifa does not match its CodigoTarifaIVA.",
      "Write the CodigoTarifaIVA's percentage in Tarifa (for example 13.00 for code 08).",
    ],
  ),
  ours(
    'tarifa-tipo-documento',
    'CodigoTarifaIVA',
    minus1(/c[oó]digo de tarifa .* no est[aá] permitido/i),
    [
      'Una línea usa un CodigoTarifaIVA que este tipo de comprobante no admite.',
      'Los CodigoTarifaIVA transitorios 05 y 06 solo se usan en notas de crédito y débito, y el 07 ya no se usa.',
    ],
    [
      'A line uses a CodigoTarifaIVA this document type does not allow.',
      'Transitional CodigoTarifaIVA 05 and 06 are for credit and debit notes only; 07 is no longer used.',
    ],
  ),
  ours(
    'identificacion',
    'Identificacion/Numero',
    minus1(/identificaci[oó]n del/i),
    [
      'Un número de identificación (Identificacion/Numero) no cumple el formato de su tipo (nota 4).',
      'En Identificacion/Numero, física: 9 dígitos sin cero inicial; jurídica: 10 caracteres; DIMEX: 11 o 12 dígitos; NITE: 10 dígitos; sin guiones.',
    ],
    [
      'An identification number (Identificacion/Numero) does not follow the format of its type (Nota 4).',
      'In Identificacion/Numero, física: 9 digits, no leading zero; jurídica: 10 characters; DIMEX: 11 or 12 digits; NITE: 10 digits; no dashes.',
    ],
  ),
  ours(
    'tipo-cambio',
    'TipoCambio',
    minus1(/tipo de cambio/i),
    [
      'El TipoCambio no es válido: debe ser 1 en colones y mayor que cero en otra moneda.',
      'Use TipoCambio 1 para CRC y el tipo de referencia del día para otras monedas.',
    ],
    [
      'TipoCambio is not valid: it must be 1 for colones and above zero otherwise.',
      "Use TipoCambio 1 for CRC and the day's reference rate for other currencies.",
    ],
  ),
  ours(
    'plazo-credito-falta',
    'PlazoCredito',
    minus1(/PlazoCredito/),
    [
      'Una venta a crédito no indica el plazo del crédito (PlazoCredito).',
      'Indique en PlazoCredito los días de crédito (por ejemplo credito_30) en las ventas a crédito.',
    ],
    [
      'A credit sale does not state the credit term (PlazoCredito).',
      'State the credit days in PlazoCredito (e.g. credito_30) on credit sales.',
    ],
  ),
  {
    id: 'otros-99',
    confirmed: false,
    field: 'CondicionVentaOtros',
    match: minus1(/El campo (\w+) es obligatorio cuando (\w+) es 99 \(Otros\)/i),
    explain: (_row, m) => {
      const field = m?.[1] ?? 'CondicionVentaOtros';
      const owner = m?.[2] ?? 'CondicionVenta';
      return {
        field,
        readable: {
          es: `Se usó el código 99 (Otros) en ${owner} sin describirlo en ${field}.`,
          en: `Code 99 (Other) was used in ${owner} without its description in ${field}.`,
        },
        fix: {
          es: `Cuando use el código 99 en ${owner}, describa la opción en ${field}.`,
          en: `When using code 99 in ${owner}, describe the option in ${field}.`,
        },
      };
    },
  },
  ours(
    'medio-pago',
    'TotalMedioPago',
    minus1(/TotalMedioPago/),
    [
      'Los montos de los medios de pago (TotalMedioPago) faltan o no suman el total del comprobante.',
      'Con más de un medio de pago indique el TotalMedioPago de cada uno; su suma debe ser el TotalComprobante.',
    ],
    [
      'The payment method amounts (TotalMedioPago) are missing or do not add up to the document total.',
      "With several payment methods give each one's TotalMedioPago; they must add up to TotalComprobante.",
    ],
  ),
  ours(
    'desglose-impuestos',
    'TotalDesgloseImpuesto',
    minus1(/desglose de impuestos|TotalDesgloseImpuesto/i),
    [
      'El desglose de impuestos del resumen (TotalDesgloseImpuesto) no coincide con los impuestos de las líneas.',
      'Incluya en TotalDesgloseImpuesto una entrada por cada código e impuesto de tarifa usado en las líneas, con la suma de sus montos.',
    ],
    [
      "The summary's tax breakdown (TotalDesgloseImpuesto) does not match the lines' taxes.",
      'List in TotalDesgloseImpuesto one entry per tax code and rate used on the lines, with the sum of their amounts.',
    ],
  ),
  ours(
    'exoneracion',
    'Exoneracion',
    minus1(/exoneraci[oó]n|MontoExoneracion|total exonerado|TarifaExonerada/i),
    [
      'Una exoneración (Exoneracion) no es válida: tarifa exonerada mayor que la del impuesto, fecha posterior al comprobante o montos que no coinciden.',
      'Revise en Exoneracion el documento de exoneración del cliente (TarifaExonerada y FechaEmisionEX) y recalcule MontoExoneracion sobre la base imponible.',
    ],
    [
      'An exoneration (Exoneracion) is not valid: exonerated rate above the tax rate, dated after the document, or amounts that do not match.',
      "Check the client's exoneration document in Exoneracion (TarifaExonerada and FechaEmisionEX) and recompute MontoExoneracion on the taxable base.",
    ],
  ),
  ours(
    'otros-cargos',
    'OtrosCargos',
    minus1(/cargo \d+|MontoCargo/),
    [
      'Un cargo adicional (OtrosCargos) no es válido: cobro de un tercero sin sus datos, o MontoCargo que no corresponde al porcentaje.',
      'En OtrosCargos de tipo 04 indique identificación y nombre del tercero; MontoCargo debe ser el porcentaje indicado.',
    ],
    [
      'An additional charge (OtrosCargos) is not valid: a third-party charge without its details, or a MontoCargo that does not match its percentage.',
      'For OtrosCargos of type 04 give the third party id and name; MontoCargo must be the stated percentage.',
    ],
  ),
  ours(
    'numero-linea',
    'NumeroLinea',
    minus1(/NumeroLinea/),
    [
      'Las líneas del detalle no están numeradas 1, 2, 3… en orden (NumeroLinea).',
      'Numere NumeroLinea consecutivamente desde 1.',
    ],
    [
      'The detail lines are not numbered 1, 2, 3… in order (NumeroLinea).',
      'Number NumeroLinea consecutively from 1.',
    ],
  ),
  ours(
    'referencia',
    'InformacionReferencia',
    minus1(/informaci[oó]n de referencia/i),
    [
      'Una referencia (InformacionReferencia) no es válida: el número no es la clave de un comprobante del tipo indicado o su fecha es posterior.',
      'Use en InformacionReferencia la clave de 50 caracteres del comprobante referido y su fecha de emisión real.',
    ],
    [
      'A reference (InformacionReferencia) is not valid: its number is not the clave of a document of the stated type, or it is dated later.',
      "Use the referenced document's 50-character clave and its real issue date in InformacionReferencia.",
    ],
  ),
  ours(
    'exportacion',
    'Receptor',
    minus1(/exportaci[oó]n|partida arancelaria/i),
    [
      'La factura de exportación no cumple sus reglas: Receptor extranjero (tipo 05) con su dirección en el extranjero, tarifa 0% (código 01) en cada línea y PartidaArancelaria de 12 dígitos.',
      'Emita la exportación a un Receptor con identificación tipo 05 y OtrasSenasExtranjero; las líneas llevan IVA con CodigoTarifaIVA 01.',
    ],
    [
      'The export invoice breaks its rules: a foreign Receptor (type 05) with its foreign address, the 0% rate (code 01) on every line and a 12-digit PartidaArancelaria.',
      'Issue the export to a Receptor with identification type 05 and OtrasSenasExtranjero; lines carry IVA with CodigoTarifaIVA 01.',
    ],
  ),
  ownSentence(
    'mensaje-receptor',
    'NumeroConsecutivoReceptor',
    /mensaje receptor|comprobante referido|MontoTotalImpuestoAcreditar|MontoTotalDeGastoAplicable|CondicionImpuesto|NumeroCedulaReceptor|TotalFactura no corresponde|MontoTotalImpuesto no corresponde|no acredita impuesto/,
    'El mensaje receptor no concuerda con el comprobante que acepta o rechaza',
    'The receptor message does not agree with the document it accepts or rejects',
  ),
  ownSentence(
    'compra-recibo',
    'InformacionReferencia',
    /factura electr[oó]nica de compra|recibo electr[oó]nico de pago|del recibo|no domiciliado/i,
    'La factura electrónica de compra o el recibo electrónico de pago no cumple sus reglas',
    'The purchase invoice or payment receipt breaks its rules',
  ),
  {
    id: 'totales-campo',
    confirmed: false,
    field: null,
    // The simulator's other amount checks: "El campo X [de la línea n] no coincide con …".
    match: minus1(/^(?:El campo|La suma de|El impuesto|La línea|La TarifaExonerada)\s*(\S*)/),
    explain: (row) => {
      const field =
        /\b((?:Total|Monto|Base|Impuesto|Proporcion|Factor|Datos|Volumen|CodigoImpuesto|IVACobrado)[\w/]*)/.exec(
          row.message,
        )?.[1];
      const f = field ?? 'ResumenFactura';
      return {
        field: f,
        readable: {
          es: `Un monto del comprobante (${f}) no coincide con el cálculo a partir de las líneas: ${row.message}`,
          en: `An amount of the document (${f}) does not match the calculation from the lines.`,
        },
        fix: {
          es: `Recalcule ${f} con 5 decimales a partir de las líneas redondeadas y emita un comprobante nuevo.`,
          en: `Recompute ${f} with 5 decimals from the rounded lines and issue a new document.`,
        },
      };
    },
  },
];
