// The codes and Spanish texts of the simulator's business-rule rejections (DetalleMensaje rows).
// Hacienda's own numbered checks keep its codes (hacienda/SOURCES.md): -37 emisor location, -16
// sent late, -58 PlazoCredito structure, -78 consecutivo structure, -99 consecutivo used and the
// totals (-44 line SubTotal, -45 line tax, -51 TotalVenta, -53 TotalVentaNeta, -54 TotalImpuesto,
// -55 TotalComprobante, -106 exonerated goods, -110 TotalMercanciasGravadas missing, -111 goods or
// services gravados, -290 ImpuestoNeto). A rule whose code Hacienda does not publish answers -1
// with a plain Spanish sentence: never a code Hacienda uses for another check. The service's
// catalogue (hacienda/rejection-catalogue*.ts) explains each one;
// test/simulator-business-rules.test.ts keeps both in step.

/** Our rules without a known Hacienda code (a plain sentence under -1). */
const OWN = -1;

export const RULE_CODES = {
  /** Hacienda's: emisor location not as registered (here: not in the territorial division). */
  emisorLocation: -37,
  receptorLocation: OWN,
  /** Where a purchase's seller is (or is not) located: ours. */
  partyLocation: OWN,
  cabys: OWN,
  activityCode: OWN,
  tariffRate: OWN,
  tariffDocumentType: OWN,
  identification: OWN,
  exchangeRate: OWN,
  /** PlazoCredito missing on a credit sale (ours); its structure is Hacienda's -58. */
  creditTerm: OWN,
  /** Hacienda's: PlazoCredito without the required structure. */
  creditTermStructure: -58,
  otherTexts: OWN,
  paymentMethods: OWN,
  exoneration: OWN,
  otherCharges: OWN,
  lineNumbers: OWN,
  references: OWN,
  exportacion: OWN,
  /** Amounts Hacienda checks under no code we know (Hacienda's totals codes: TOTALS_CODES). */
  totals: OWN,
  /** FechaEmision ahead of the official clock (ours: Hacienda's -53 is TotalVentaNeta). */
  issueDateFuture: OWN,
  /** Hacienda's (v4.2-era text): sent too long after FechaEmision. */
  issueDateLate: -16,
} as const;

/** Hacienda's totals checks by the field they judge; any other amount is ours (-1). */
export const TOTALS_CODES: Readonly<Record<string, number>> = {
  SubTotal: -44,
  'Impuesto/Monto': -45,
  TotalVenta: -51,
  TotalVentaNeta: -53,
  TotalImpuesto: -54,
  TotalComprobante: -55,
  TotalMercExonerada: -106,
  /** TotalMercanciasGravadas missing while goods carry IVA (-48 in v4.3 answers, -110 in 4.4). */
  'TotalMercanciasGravadas?': -110,
  TotalServGravados: -111,
  TotalMercanciasGravadas: -111,
  ImpuestoNeto: -290,
};

/** The code of a totals row about `field`. */
export const totalsCode = (field: string): number => TOTALS_CODES[field] ?? OWN;

/** Hacienda's own sentences for its checks, as its answers write them (hacienda/SOURCES.md). */
export const HACIENDA_TEXTS = {
  /** -45, the amount Hacienda expected in parentheses. */
  lineTax: (line: string, expected: string) =>
    `El monto del impuesto de la línea (${line}) no corresponde al valor de multiplicar el subtotal por la tarifa del impuesto. (${expected})`,
  /** -51. */
  totalVenta: (expected: string) =>
    `El monto total de venta no coincide con la suma de los totales gravados y exentos (${expected})`,
  /** -54. */
  totalImpuesto:
    "El monto total de impuestos no coincide con la suma de los campos denominados 'Monto del Impuesto'",
  /** -55. */
  totalComprobante: (expected: string) =>
    `El monto total del comprobante no coincide con la suma del total de venta neta y el total de impuestos (${expected})`,
  /** -48 (v4.3) / -110: goods with IVA but no TotalMercanciasGravadas. */
  mercanciasGravadasMissing:
    "El resumen de la factura carece del monto total de mercancías gravados y cuenta con impuestos con código '01'",
} as const;

export const RULE_TEXTS = {
  emisorLocation:
    "Estimado obligado tributario los datos suministrados en provincia, cantón y distrito del 'emisor' no concuerdan con la información registrada en la Dirección General de Tributación, favor proceder actualizar sus datos.",
  receptorLocation: (what: string) =>
    `Los datos suministrados en provincia, cantón y distrito del 'receptor' no corresponden a la codificación de ubicación vigente (${what}).`,
  cabysFormat: (line: string, code: string) =>
    `El código CAByS '${code}' de la línea ${line} no es válido: debe tener 13 dígitos.`,
  cabysUnknown: (line: string, code: string) =>
    `El código CAByS '${code}' de la línea ${line} no existe en el catálogo de bienes y servicios.`,
  activityCode: (field: string, code: string) =>
    `El código de actividad económica '${code}' (${field}) no tiene el formato requerido de 6 dígitos.`,
  tariffRate: (line: string, tariffCode: string, expected: string, got: string) =>
    `La tarifa del impuesto de la línea ${line} no corresponde al código de tarifa ${tariffCode}: se esperaba ${expected} y se recibió ${got}.`,
  tariffDocumentType: (line: string, tariffCode: string) =>
    `El código de tarifa ${tariffCode} de la línea ${line} no está permitido en este tipo de comprobante.`,
  identification: (party: string, tipo: string, rule: string) =>
    `La identificación del ${party} no cumple el formato del tipo ${tipo} (nota 4): ${rule}.`,
  exchangeRateCrc: (got: string) =>
    `El tipo de cambio debe ser 1 cuando la moneda es colones (CRC); se recibió ${got}.`,
  exchangeRatePositive: (currency: string) =>
    `El tipo de cambio de la moneda ${currency} debe ser mayor que cero.`,
  creditTerm: (condicion: string) =>
    `El plazo del crédito (PlazoCredito) es obligatorio cuando la condición de venta es ${condicion}.`,
  otherTexts: (field: string, owner: string) =>
    `El campo ${field} es obligatorio cuando ${owner} es 99 (Otros).`,
  paymentTotalRequired: 'El campo TotalMedioPago es obligatorio cuando se utiliza más de un medio de pago.',
  paymentTotals: (expected: string, got: string) =>
    `La suma de TotalMedioPago no coincide con TotalComprobante: se esperaba ${expected} y se recibió ${got}.`,
  breakdownMissing: (codigo: string, tarifa: string) =>
    `El desglose de impuestos (TotalDesgloseImpuesto) no coincide con las líneas: falta el impuesto ${codigo}${tarifa ? ` tarifa ${tarifa}` : ''}.`,
  breakdownRepeated: (codigo: string, tarifa: string) =>
    `El desglose de impuestos (TotalDesgloseImpuesto) no coincide con las líneas: el impuesto ${codigo}${tarifa ? ` tarifa ${tarifa}` : ''} aparece más de una vez.`,
  breakdownExtra: (codigo: string, tarifa: string) =>
    `El desglose de impuestos (TotalDesgloseImpuesto) no coincide con las líneas: el impuesto ${codigo}${tarifa ? ` tarifa ${tarifa}` : ''} no aparece en ninguna línea.`,
  exonerationRate: (line: string, exonerated: string, rate: string) =>
    `La exoneración de la línea ${line} no es válida: la tarifa exonerada (${exonerated}) es mayor que la tarifa del impuesto (${rate}).`,
  exonerationDate: (line: string) =>
    `La exoneración de la línea ${line} no es válida: la fecha de emisión del documento de exoneración es posterior a la del comprobante.`,
  exonerationAmount: (line: string, expected: string, got: string) =>
    `El campo MontoExoneracion de la línea ${line} no coincide con BaseImponible × TarifaExonerada: se esperaba ${expected} y se recibió ${got}.`,
  exonerationBuckets: (expected: string, got: string) =>
    `El total exonerado (TotalServExonerado + TotalMercExonerada) no coincide con la parte exonerada de las líneas: se esperaba ${expected} y se recibió ${got}.`,
  otherChargeThirdParty: (k: number) =>
    `El cargo ${k} de tipo 04 (cobro de un tercero) debe indicar la identificación y el nombre del tercero.`,
  otherChargeAmount: (k: number, got: string) =>
    `El campo MontoCargo del cargo ${k} no coincide con el porcentaje indicado (PorcentajeOC) sobre la venta: se recibió ${got}.`,
  lineNumbers: (expected: number, got: string) =>
    `Los números de línea (NumeroLinea) deben ser consecutivos desde 1: se esperaba ${expected} y se recibió ${got}.`,
  referenceClave: (k: number, tipo: string) =>
    `La información de referencia ${k} no es válida: el número no es la clave numérica de un comprobante electrónico de tipo ${tipo}.`,
  referenceDate: (k: number) =>
    `La información de referencia ${k} no es válida: la fecha de emisión del documento de referencia es posterior a la del comprobante.`,
  exportReceptorMissing:
    'La factura electrónica de exportación debe indicar el receptor (comprador en el extranjero).',
  exportReceptorNotForeign: (tipo: string) =>
    `La factura electrónica de exportación debe dirigirse a un receptor extranjero no domiciliado (tipo 05 de la nota 4); se recibió el tipo ${tipo}.`,
  exportForeignAddress:
    'La factura electrónica de exportación debe indicar la dirección del receptor en el extranjero (OtrasSenasExtranjero).',
  exportTariff: (line: string, tariffCode: string) =>
    `La línea ${line} de la factura electrónica de exportación debe llevar el código de tarifa 01 (tarifa 0%, exportaciones) sin monto de impuesto; se recibió el código ${tariffCode}.`,
  exportPartida: (line: string, partida: string) =>
    `La partida arancelaria '${partida}' de la línea ${line} no es válida: debe tener 12 dígitos.`,
  issueDateFuture:
    'La fecha de emisión (FechaEmision) del comprobante es posterior a la hora oficial de la Dirección General de Tributación.',
  creditTermStructure: (got: string) =>
    `El campo PlazoCredito no cumple con la estructura requerida: indique el número de días del crédito; se recibió '${got}'.`,
  issueDateLate:
    'El archivo XML, fue enviado a la Dirección General de Tributación de manera extemporánea; con base en lo estipulado en el artículo 9 y 15 ambos de la resolución 48-2016',
} as const;

/** Free-text signature reasons: Hacienda's observed wording plus the cause in parentheses. */
const invalid = (cause: string) => `La firma del comprobante electrónico no es válida (${cause}).`;
export const SIGNATURE_RULE_TEXTS = {
  /** Hacienda's own text for a signature without SignaturePolicyIdentifier. */
  policyMissing: 'La firma del documento no tiene el Policy Id',
  policy: invalid('La política de firma no corresponde a la versión 4.4 de comprobantes electrónicos'),
  role: invalid('El rol del firmante no corresponde al emisor del comprobante'),
  signingTimeMissing: invalid('La firma no indica la fecha y hora de firmado'),
  signingTimeFuture: invalid('La fecha y hora de firmado es posterior a la hora oficial'),
  signingTimeBeforeIssue: invalid('La fecha y hora de firmado es anterior a la fecha de emisión'),
  certificateUntrusted: invalid(
    'El certificado no fue emitido por una autoridad certificadora reconocida por el Ministerio de Hacienda',
  ),
  certificateNotCurrent: invalid('El certificado no estaba vigente en la fecha y hora de firmado'),
} as const;
