// The codes and Spanish texts of the simulator's business-rule rejections (DetalleMensaje rows).
// Hacienda publishes few of them (rejection texts seen in Hacienda's answers): -37 (ubicación), -16 (extemporáneo), -53 (hora
// oficial) and the -111 totals family are Hacienda's codes; every other code below is ours, chosen
// in the same style (a small negative number per rule) and written in Hacienda's register. The
// service's rejection catalogue (hacienda/rejection-catalogue.ts) explains each one and marks the
// ones that are not confirmed; test/simulator-business-rules.test.ts keeps both in step.

export const RULE_CODES = {
  /** Hacienda's: emisor location not as registered (here: not in the territorial division). */
  emisorLocation: -37,
  receptorLocation: -38,
  cabys: -40,
  activityCode: -41,
  tariffRate: -42,
  tariffDocumentType: -43,
  identification: -44,
  exchangeRate: -45,
  creditTerm: -46,
  otherTexts: -47,
  paymentMethods: -48,
  exoneration: -50,
  otherCharges: -51,
  lineNumbers: -52,
  references: -54,
  exportacion: -55,
  /** Hacienda's: amounts that do not add up. */
  totals: -111,
  /** Hacienda's: FechaEmision ahead of the official clock. */
  issueDateFuture: -53,
  /** Hacienda's (v4.2-era text): sent too long after FechaEmision. */
  issueDateLate: -16,
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
    'La fecha de emisión del comprobante es posterior a la hora oficial de la Dirección General de Tributación.',
  issueDateLate:
    'El archivo XML, fue enviado a la Dirección General de Tributación de manera extemporánea; con base en lo estipulado en el artículo 9 y 15 ambos de la resolución 48-2016',
} as const;

/** Free-text signature reasons: Hacienda's observed wording plus the cause in parentheses. */
const invalid = (cause: string) => `La firma del comprobante electrónico no es válida (${cause}).`;
export const SIGNATURE_RULE_TEXTS = {
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
