// Hacienda v4.4 code lists as typed constants, copied from the 2026 XSD set (FacturaElectronica_V4.4.xsd)
// and Hacienda's Anexos y Estructuras. Each list keeps the official
// code as the key and a short Spanish label; where a code is restricted to some document types the
// restriction sits beside it. Identification types live in ./identification.ts and are re-exported.

export { IDENTIFICATION_TYPES, isIdentificationType } from './identification.ts';
export type { IdentificationType } from './identification.ts';

function hasCode<T extends object>(table: T, code: string): code is Extract<keyof T, string> {
  return Object.hasOwn(table, code);
}

// ---------------------------------------------------------------------------------------------
// Tipo de comprobante (Anexos nota 3): positions 9-10 of the consecutivo. Each type, its name and
// everything that depends on it is described once in ./document-types/ (one file per type); this
// is the code list of Hacienda's tables, which restrict some codes to some types.

export const TIPO_COMPROBANTE_CODES = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10'] as const;
export type TipoComprobante = (typeof TIPO_COMPROBANTE_CODES)[number];
export const isTipoComprobante = (v: string): v is TipoComprobante =>
  (TIPO_COMPROBANTE_CODES as readonly string[]).includes(v);

// ---------------------------------------------------------------------------------------------
// Situación del comprobante (position 42 of the clave).

export const SITUACIONES = {
  '1': 'Normal',
  '2': 'Contingencia',
  '3': 'Sin internet',
} as const;
export type Situacion = keyof typeof SITUACIONES;
export const isSituacion = (v: string): v is Situacion => hasCode(SITUACIONES, v);

// ---------------------------------------------------------------------------------------------
// CodigoImpuesto (nota 8). 01, 07 and 08 are the IVA of a line (one of them at most, with its
// CodigoTarifaIVA); the others are taxes beside it (domain/other-taxes.ts).

export const CODIGOS_IMPUESTO = {
  '01': 'Impuesto al Valor Agregado',
  '02': 'Impuesto Selectivo de Consumo',
  '03': 'Impuesto único a los combustibles',
  '04': 'Impuesto específico de bebidas alcohólicas',
  '05': 'Impuesto específico sobre las bebidas envasadas sin contenido alcohólico y jabones de tocador',
  '06': 'Impuesto a los productos de tabaco',
  '07': 'IVA (cálculo especial)',
  '08': 'IVA Régimen de Bienes Usados (Factor)',
  '12': 'Impuesto específico al cemento',
  '99': 'Otros',
} as const;
export type CodigoImpuesto = keyof typeof CODIGOS_IMPUESTO;
export const isCodigoImpuesto = (v: string): v is CodigoImpuesto => hasCode(CODIGOS_IMPUESTO, v);

/** The IVA of a line: 01 general, 07 cálculo especial (BaseImponible given), 08 bienes usados (factor). */
export const IVA_TAX_CODES = ['01', '07', '08'] as const satisfies readonly CodigoImpuesto[];
export type IvaTaxCode = (typeof IVA_TAX_CODES)[number];
export const isIvaTaxCode = (v: string): v is IvaTaxCode => (IVA_TAX_CODES as readonly string[]).includes(v);

/** Taxes a line may carry beside its IVA. */
export const OTHER_TAX_CODES = [
  '02',
  '03',
  '04',
  '05',
  '06',
  '12',
  '99',
] as const satisfies readonly CodigoImpuesto[];
export type OtherTaxCode = (typeof OTHER_TAX_CODES)[number];
export const isOtherTaxCode = (v: string): v is OtherTaxCode =>
  (OTHER_TAX_CODES as readonly string[]).includes(v);

/** Taxes added to the IVA's BaseImponible (XSD annotation of BaseImponible). */
export const BASE_TAX_CODES: ReadonlySet<CodigoImpuesto> = new Set<CodigoImpuesto>(['02', '04', '05', '12']);

// ---------------------------------------------------------------------------------------------
// CodigoTarifaIVA (nota 8.1). `rate` is the percentage as a decimal string; `treatment` says in
// which ResumenFactura bucket a line with this code lands; `usage` says where it may be used.
//
// Treatment decisions (the XSD only names the codes):
//   - 10 "Tarifa Exenta" is the exempt bucket (TotalServExentos / TotalMercanciasExentas).
//   - 11 "Tarifa 0% sin derecho a crédito" is the no-sujeto bucket (TotalServNoSujeto /
//     TotalMercNoSujeta): operations outside IVA carry no tax and give no credit.
//   - 01 "Tarifa 0% (Artículo 32, num 1, RLIVA)" is a rate of the tax with right to credit
//     (exports and similar), so it is gravado at 0%. In 4.3 the same code read "Tarifa 0%
//     (Exento)"; 4.4 dropped that word and added 10 for exempt sales.
//   - every other code is gravado at its rate.

export type IvaTreatment = 'gravado' | 'exento' | 'noSujeto';

/**
 * `all`: any document; `notes`: only NC/ND (transitional rates kept for correcting old sales);
 * `disabled`: still in the enum but no longer accepted (Anexos 4.4).
 */
export type IvaRateUsage = 'all' | 'notes' | 'disabled';

export const IVA_RATES = {
  '01': { rate: '0', label: 'Tarifa 0% (Artículo 32, num 1, RLIVA)', treatment: 'gravado', usage: 'all' },
  '02': { rate: '1', label: 'Tarifa reducida 1%', treatment: 'gravado', usage: 'all' },
  '03': { rate: '2', label: 'Tarifa reducida 2%', treatment: 'gravado', usage: 'all' },
  '04': { rate: '4', label: 'Tarifa reducida 4%', treatment: 'gravado', usage: 'all' },
  '05': { rate: '0', label: 'Transitorio 0%', treatment: 'gravado', usage: 'notes' },
  '06': { rate: '4', label: 'Transitorio 4%', treatment: 'gravado', usage: 'notes' },
  '07': { rate: '8', label: 'Tarifa transitoria 8%', treatment: 'gravado', usage: 'disabled' },
  '08': { rate: '13', label: 'Tarifa general 13%', treatment: 'gravado', usage: 'all' },
  '09': { rate: '0.5', label: 'Tarifa reducida 0.5%', treatment: 'gravado', usage: 'all' },
  '10': { rate: '0', label: 'Tarifa Exenta', treatment: 'exento', usage: 'all' },
  '11': { rate: '0', label: 'Tarifa 0% sin derecho a crédito', treatment: 'noSujeto', usage: 'all' },
} as const satisfies Record<
  string,
  { rate: string; label: string; treatment: IvaTreatment; usage: IvaRateUsage }
>;
export type CodigoTarifaIVA = keyof typeof IVA_RATES;
export const isCodigoTarifaIVA = (v: string): v is CodigoTarifaIVA => hasCode(IVA_RATES, v);

/** Whether an IVA rate code may appear in a document of the given type. */
export function isIvaRateAllowed(code: CodigoTarifaIVA, docType: TipoComprobante): boolean {
  const usage: IvaRateUsage = IVA_RATES[code].usage;
  if (usage === 'all') return true;
  if (usage === 'notes') return docType === '02' || docType === '03';
  return false;
}

/** The rate codes a Factura Electrónica may carry: 01-04, 08, 09, 10, 11. */
export const IVA_RATE_CODES_FE: readonly CodigoTarifaIVA[] = (
  Object.keys(IVA_RATES) as CodigoTarifaIVA[]
).filter((c) => isIvaRateAllowed(c, '01'));

// ---------------------------------------------------------------------------------------------
// UnidadMedida: the full UnidadMedidaType enumeration of the 2026 XSD (RTC 443:2010 plus
// Hacienda's own service and coffee units), in schema order, casing and characters exactly as
// published (note `M` metro, `G` gramo, `Kg`, `S` segundo vs `s` siemens).

export const UNIDADES_MEDIDA = [
  ['1', 'uno (índice de refracción)'],
  ['´', 'minuto'],
  ['´´', 'segundo'],
  ['°C', 'grado Celsius'],
  ['1/m', '1 por metro'],
  ['A', 'Ampere'],
  ['A/m', 'ampere por metro'],
  ['A/m²', 'ampere por metro cuadrado'],
  ['Acv', 'Activo Virtual'],
  ['Al', 'Alquiler de uso habitacional'],
  ['Alc', 'Alquiler de uso comercial'],
  ['B', 'bel'],
  ['Bq', 'Becquerel'],
  ['C', 'coulomb'],
  ['C/kg', 'coulomb por kilogramo'],
  ['C/m²', 'coulomb por metro cuadrado'],
  ['C/m³', 'coulomb por metro cúbico'],
  ['Cc', 'Cajuela de café'],
  ['Cd', 'Candela'],
  ['cd/m²', 'candela por metro cuadrado'],
  ['Cm', 'Comisiones'],
  ['cm', 'centímetro'],
  ['Cu', 'cuartillos de café'],
  ['D', 'día'],
  ['eV', 'electronvolt'],
  ['F', 'farad'],
  ['F/m', 'farad por metro'],
  ['Fa', 'fanega de café'],
  ['G', 'Gramo'],
  ['Gal', 'Galón'],
  ['Gy', 'gray'],
  ['Gy/s', 'gray por segundo'],
  ['h', 'hora'],
  ['H', 'henry'],
  ['H/m', 'henry por metro'],
  ['Hz', 'hertz'],
  ['I', 'Intereses'],
  ['J', 'Joule'],
  ['J/(kg·K)', 'joule por kilogramo kelvin'],
  ['J/(mol·K)', 'joule por mol kelvin'],
  ['J/K', 'joule por kelvin'],
  ['J/kg', 'joule por kilogramo'],
  ['J/m³', 'joule por metro cúbico'],
  ['J/mol', 'joule por mol'],
  ['K', 'Kelvin'],
  ['Kat', 'katal'],
  ['kat/m³', 'katal por metro cúbico'],
  ['Kg', 'Kilogramo'],
  ['kg/m³', 'kilogramo por metro cúbico'],
  ['Km', 'Kilometro'],
  ['Kw', 'kilovatios'],
  ['kWh', 'Kilovatios por hora'],
  ['L', 'litro'],
  ['Lm', 'lumen'],
  ['Ln', 'pulgada'],
  ['Lx', 'lux'],
  ['M', 'Metro'],
  ['m/s', 'metro por segundo'],
  ['m/s²', 'metro por segundo cuadrado'],
  ['m²', 'metro cuadrado'],
  ['m³', 'metro cúbico'],
  ['Min', 'minuto'],
  ['mL', 'mililitro'],
  ['Mm', 'Milímetro'],
  ['Mol', 'Mol'],
  ['mol/m³', 'mol por metro cúbico'],
  ['N', 'newton'],
  ['N/m', 'newton por metro'],
  ['N·m', 'newton metro'],
  ['Np', 'neper'],
  ['º', 'grado'],
  ['Os', 'Otro tipo de servicio'],
  ['Otros', 'Se debe indicar la descripción de la medida a utilizar'],
  ['Oz', 'Onzas'],
  ['Pa', 'pascal'],
  ['Pa·s', 'pascal segundo'],
  ['Qq', 'Quintal'],
  ['Rad', 'radián'],
  ['rad/s', 'radián por segundo'],
  ['rad/s²', 'radián por segundo cuadrado'],
  ['S', 'Segundo'],
  ['s', 'siemens'],
  ['Sp', 'Servicios Profesionales'],
  ['Spe', 'Servicios personales'],
  ['Sr', 'estereorradián'],
  ['St', 'Servicios técnicos'],
  ['Sv', 'sievert'],
  ['t', 'tesla'],
  ['T', 'tonelada'],
  ['U', 'unidad de masa atómica unificada'],
  ['Ua', 'unidad astronómica'],
  ['Unid', 'Unidad'],
  ['V', 'volt'],
  ['V/m', 'volt por metro'],
  ['W', 'Watt'],
  ['W/(m·K)', 'watt por metro kevin'],
  ['W/(m²·sr)', 'watt por metro cuadrado estereorradián'],
  ['W/m²', 'watt por metro cuadrado'],
  ['W/sr', 'watt por estereorradián'],
  ['Wb', 'weber'],
  ['Ω', 'ohm'],
] as const;
export type UnidadMedida = (typeof UNIDADES_MEDIDA)[number][0];

const UNIDAD_SET: ReadonlySet<string> = new Set(UNIDADES_MEDIDA.map(([code]) => code));
export const isUnidadMedida = (v: string): v is UnidadMedida => UNIDAD_SET.has(v);

/**
 * Units that make a line a service in the ResumenFactura split (TotalServ* vs TotalMerc*).
 *
 * Decision: the split really follows the CABYS code (Hacienda rejects a mismatch with -111), and
 * the unit is the only hint the document itself carries. A unit counts as a service when its
 * XSD label names a service or a charge for one:
 *   Sp servicios profesionales, Spe servicios personales, St servicios técnicos, Os otro tipo de
 *   servicio, Al / Alc alquiler habitacional / comercial, Cm comisiones, I intereses;
 * plus the units of time used to bill work and use: h hora, D día, Min minuto, S segundo.
 * The symbols ´ and ´´ stay goods: in RTC 443 they are the minute and second of plane angle.
 * Everything else (including Unid, Otros and Acv activo virtual) is goods. A line may override
 * the classification explicitly when its CABYS says otherwise.
 */
export const SERVICE_UNITS: ReadonlySet<UnidadMedida> = new Set<UnidadMedida>([
  'Sp',
  'Spe',
  'St',
  'Os',
  'Al',
  'Alc',
  'Cm',
  'I',
  'h',
  'D',
  'Min',
  'S',
]);

export type LineKind = 'goods' | 'services';

export function unitKind(unit: UnidadMedida): LineKind {
  return SERVICE_UNITS.has(unit) ? 'services' : 'goods';
}

// ---------------------------------------------------------------------------------------------
// CondicionVenta (nota 5) with the document types that accept each code.

export const CONDICIONES_VENTA = {
  '01': 'Contado',
  '02': 'Crédito',
  '03': 'Consignación',
  '04': 'Apartado',
  '05': 'Arrendamiento con opción de compra',
  '06': 'Arrendamiento en función financiera',
  '07': 'Cobro a favor de un tercero',
  '08': 'Servicios prestados al Estado a crédito',
  '09': 'Pago del servicio prestado al Estado',
  '10': 'Venta a crédito en IVA hasta 90 días (Artículo 27, LIVA)',
  '11': 'Pago de venta a crédito en IVA hasta 90 días',
  '12': 'Venta mercancía no nacionalizada',
  '13': 'Venta bienes usados no contribuyente',
  '14': 'Arrendamiento operativo',
  '15': 'Arrendamiento financiero',
  '99': 'Otros',
} as const;
export type CondicionVenta = keyof typeof CONDICIONES_VENTA;
export const isCondicionVenta = (v: string): v is CondicionVenta => hasCode(CONDICIONES_VENTA, v);

/** Codes accepted in a Factura Electrónica: 09 and 11 are only for the Recibo Electrónico de Pago. */
export const CONDICIONES_VENTA_FE: readonly CondicionVenta[] = [
  '01',
  '02',
  '03',
  '04',
  '05',
  '06',
  '07',
  '08',
  '10',
  '12',
  '13',
  '14',
  '15',
  '99',
];

/** Sale conditions that grant credit, for which PlazoCredito is required. */
export const CONDICIONES_VENTA_CREDITO: readonly CondicionVenta[] = ['02', '08', '10'];

// ---------------------------------------------------------------------------------------------
// TipoMedioPago (nota 6); 06 and 07 are new in 4.4.

export const MEDIOS_PAGO = {
  '01': 'Efectivo',
  '02': 'Tarjeta',
  '03': 'Cheque',
  '04': 'Transferencia - depósito bancario',
  '05': 'Recaudado por terceros',
  '06': 'SINPE MÓVIL',
  '07': 'Plataforma Digital',
  '99': 'Otros',
} as const;
export type TipoMedioPago = keyof typeof MEDIOS_PAGO;
export const isTipoMedioPago = (v: string): v is TipoMedioPago => hasCode(MEDIOS_PAGO, v);

// ---------------------------------------------------------------------------------------------
// CodigoDescuento (nota 20). 99 requires CodigoDescuentoOTRO.

export const CODIGOS_DESCUENTO = {
  '01': 'Descuento por Regalía',
  '02': 'Descuento por Regalía IVA Cobrado al Cliente',
  '03': 'Descuento por Bonificación',
  '04': 'Descuento por volumen',
  '05': 'Descuento por Temporada (estacional)',
  '06': 'Descuento promocional',
  '07': 'Descuento Comercial',
  '08': 'Descuento por frecuencia',
  '09': 'Descuento sostenido',
  '99': 'Otros descuentos',
} as const;
export type CodigoDescuento = keyof typeof CODIGOS_DESCUENTO;
export const isCodigoDescuento = (v: string): v is CodigoDescuento => hasCode(CODIGOS_DESCUENTO, v);

// ---------------------------------------------------------------------------------------------
// Exoneraciones: TipoDocumentoEX1 (nota 10.1) and NombreInstitucion (nota 23).

export const TIPOS_DOCUMENTO_EXONERACION = {
  '01': 'Compras autorizadas por la Dirección General de Tributación',
  '02': 'Ventas exentas a diplomáticos',
  '03': 'Autorizado por Ley Especial',
  '04': 'Exenciones Dirección General de Hacienda Autorización Local Genérica',
  '05': 'Exenciones Dirección General de Hacienda Transitorio V (servicios de ingeniería, arquitectura, topografía obra civil)',
  '06': 'Servicios turísticos inscritos ante el Instituto Costarricense de Turismo (ICT)',
  '07': 'Transitorio XVII (Recolección, Clasificación, almacenamiento de Reciclaje y reutilizable)',
  '08': 'Exoneración a Zona Franca',
  '09': 'Exoneración de servicios complementarios para la exportación articulo 11 RLIVA',
  '10': 'Órgano de las corporaciones municipales',
  '11': 'Exenciones Dirección General de Hacienda Autorización de Impuesto Local Concreta',
  '99': 'Otros',
} as const;
export type TipoDocumentoExoneracion = keyof typeof TIPOS_DOCUMENTO_EXONERACION;
export const isTipoDocumentoExoneracion = (v: string): v is TipoDocumentoExoneracion =>
  hasCode(TIPOS_DOCUMENTO_EXONERACION, v);

export const INSTITUCIONES_EXONERACION = {
  '01': 'Ministerio de Hacienda',
  '02': 'Ministerio de Relaciones Exteriores y Culto',
  '03': 'Ministerio de Agricultura y Ganadería',
  '04': 'Ministerio de Economía, Industria y Comercio',
  '05': 'Cruz Roja Costarricense',
  '06': 'Benemérito Cuerpo de Bomberos de Costa Rica',
  '07': 'Asociación Obras del Espíritu Santo',
  '08': 'Federación Cruzada Nacional de protección al Anciano (Fecrunapa)',
  '09': 'Escuela de Agricultura de la Región Húmeda (EARTH)',
  '10': 'Instituto Centroamericano de Administración de Empresas (INCAE)',
  '11': 'Junta de Protección Social (JPS)',
  '12': 'Autoridad Reguladora de los Servicios Públicos (Aresep)',
  '99': 'Otros',
} as const;
export type InstitucionExoneracion = keyof typeof INSTITUCIONES_EXONERACION;
export const isInstitucionExoneracion = (v: string): v is InstitucionExoneracion =>
  hasCode(INSTITUCIONES_EXONERACION, v);

// ---------------------------------------------------------------------------------------------
// TipoDocumentoOC (nota 16): other charges outside the lines (OtrosCargos).

export const TIPOS_OTROS_CARGOS = {
  '01': 'Contribución parafiscal',
  '02': 'Timbre de la Cruz Roja',
  '03': 'Timbre de Benemérito Cuerpo de Bomberos de Costa Rica',
  '04': 'Cobro de un tercero',
  '05': 'Costos de Exportación',
  '06': 'Impuesto de servicio 10%',
  '07': 'Timbre de Colegios Profesionales',
  '08': 'Depósitos de Garantía',
  '09': 'Multas o Penalizaciones',
  '10': 'Intereses Moratorios',
  '99': 'Otros Cargos',
} as const;
export type TipoOtroCargo = keyof typeof TIPOS_OTROS_CARGOS;
export const isTipoOtroCargo = (v: string): v is TipoOtroCargo => hasCode(TIPOS_OTROS_CARGOS, v);

// ---------------------------------------------------------------------------------------------
// CodigoComercial/Tipo (nota 12) and TipoTransaccion (FE lines only).

export const TIPOS_CODIGO_COMERCIAL = {
  '01': 'Código del producto del vendedor',
  '02': 'Código del producto del comprador',
  '03': 'Código del producto asignado por la industria',
  '04': 'Código de uso interno',
  '99': 'Otros',
} as const;
export type TipoCodigoComercial = keyof typeof TIPOS_CODIGO_COMERCIAL;

export const TIPOS_TRANSACCION = {
  '01': 'Venta Normal de Bienes y Servicios (Transacción General)',
  '02': 'Mercancía de Autoconsumo exento',
  '03': 'Mercancía de Autoconsumo gravado',
  '04': 'Servicio de Autoconsumo exento',
  '05': 'Servicio de Autoconsumo gravado',
  '06': 'Cuota de afiliación',
  '07': 'Cuota de afiliación Exenta',
  '08': 'Bienes de Capital para el emisor',
  '09': 'Bienes de Capital para el receptor',
  '10': 'Bienes de Capital para el emisor y el receptor',
  '11': 'Bienes de capital de autoconsumo exento para el emisor',
  '12': 'Bienes de capital sin contraprestación a terceros exento para el emisor',
  '13': 'Sin contraprestación a terceros',
} as const;
export type TipoTransaccion = keyof typeof TIPOS_TRANSACCION;

// ---------------------------------------------------------------------------------------------
// InformacionReferencia: TipoDocIR (nota 10) and Codigo (nota 9), 2026 set.

export const TIPOS_DOCUMENTO_REFERENCIA = {
  '01': 'Factura electrónica',
  '02': 'Nota de débito electrónica',
  '03': 'Nota de crédito electrónica',
  '04': 'Tiquete electrónico',
  '05': 'Nota de despacho',
  '06': 'Contrato',
  '07': 'Procedimiento',
  '08': 'Comprobante emitido en contingencia',
  '09': 'Devolución mercadería',
  '10': 'Comprobante electrónico rechazado por el Ministerio de Hacienda',
  '11': 'Sustituye factura rechazada por el Receptor del comprobante',
  '12': 'Sustituye Factura de exportación',
  '13': 'Facturación mes vencido',
  '14': 'Comprobante aportado por contribuyente de Régimen Especial',
  '15': 'Sustituye una Factura electrónica de Compra',
  '16': 'Comprobante de Proveedor No Domiciliado',
  '17': 'Nota de Crédito a Factura Electrónica de Compra',
  '18': 'Nota de Débito a Factura Electrónica de Compra',
  '19': 'Factura Electrónica de Exportación',
  '20': 'Recibo Electrónico de Pago',
  '99': 'Otros',
} as const;
export type TipoDocumentoReferencia = keyof typeof TIPOS_DOCUMENTO_REFERENCIA;

export const CODIGOS_REFERENCIA = {
  '01': 'Anula documento de referencia',
  '02': 'Corrige texto de documento de referencia',
  '04': 'Referencia a otro documento',
  '05': 'Sustituye comprobante provisional por contingencia',
  '06': 'Devolución de mercancía',
  '07': 'Sustituye comprobante electrónico',
  '08': 'Factura Endosada',
  '09': 'Nota de crédito financiera',
  '10': 'Nota de débito financiera',
  '11': 'Proveedor No Domiciliado',
  '12': 'Crédito por exoneración posterior a la facturación',
  '13': 'Anula documento de referencia por error material',
  '14': 'Corrige monto por error material',
  '15': 'Sustituye comprobante electrónico por error material',
  '16': 'Sustituye comprobante electrónico rechazado',
  '99': 'Otros',
} as const;
export type CodigoReferencia = keyof typeof CODIGOS_REFERENCIA;

// ---------------------------------------------------------------------------------------------
// CodigoMoneda: the ISO 4217 enumeration of CodigoMonedaType in the 2026 XSD, as published
// (it still lists retired codes such as BYR, HRK, MRO, VEF; that is what the schema accepts).

export const CODIGOS_MONEDA = [
  'AED',
  'AFN',
  'ALL',
  'AMD',
  'ANG',
  'AOA',
  'ARS',
  'AUD',
  'AWG',
  'AZN',
  'BAM',
  'BBD',
  'BDT',
  'BGN',
  'BHD',
  'BIF',
  'BMD',
  'BND',
  'BOB',
  'BOV',
  'BRL',
  'BSD',
  'BTN',
  'BWP',
  'BYR',
  'BZD',
  'CAD',
  'CDF',
  'CHE',
  'CHF',
  'CHW',
  'CLF',
  'CLP',
  'CNY',
  'COP',
  'COU',
  'CRC',
  'CUC',
  'CUP',
  'CVE',
  'CZK',
  'DJF',
  'DKK',
  'DOP',
  'DZD',
  'EGP',
  'ERN',
  'ETB',
  'EUR',
  'FJD',
  'FKP',
  'GBP',
  'GEL',
  'GHS',
  'GIP',
  'GMD',
  'GNF',
  'GTQ',
  'GYD',
  'HKD',
  'HNL',
  'HRK',
  'HTG',
  'HUF',
  'IDR',
  'ILS',
  'INR',
  'IQD',
  'IRR',
  'ISK',
  'JMD',
  'JOD',
  'JPY',
  'KES',
  'KGS',
  'KHR',
  'KMF',
  'KPW',
  'KRW',
  'KWD',
  'KYD',
  'KZT',
  'LAK',
  'LBP',
  'LKR',
  'LRD',
  'LSL',
  'LYD',
  'MAD',
  'MDL',
  'MGA',
  'MKD',
  'MMK',
  'MNT',
  'MOP',
  'MRO',
  'MUR',
  'MVR',
  'MWK',
  'MXN',
  'MXV',
  'MYR',
  'MZN',
  'NAD',
  'NGN',
  'NIO',
  'NOK',
  'NPR',
  'NZD',
  'OMR',
  'PAB',
  'PEN',
  'PGK',
  'PHP',
  'PKR',
  'PLN',
  'PYG',
  'QAR',
  'RON',
  'RSD',
  'RUB',
  'RWF',
  'SAR',
  'SBD',
  'SCR',
  'SDG',
  'SEK',
  'SGD',
  'SHP',
  'SLL',
  'SOS',
  'SRD',
  'SSP',
  'STD',
  'SVC',
  'SYP',
  'SZL',
  'THB',
  'TJS',
  'TMT',
  'TND',
  'TOP',
  'TRY',
  'TTD',
  'TWD',
  'TZS',
  'UAH',
  'UGX',
  'USD',
  'USN',
  'UYI',
  'UYU',
  'UZS',
  'VEF',
  'VND',
  'VUV',
  'WST',
  'XAF',
  'XCD',
  'XDR',
  'XOF',
  'XPF',
  'XSU',
  'XUA',
  'YER',
  'ZAR',
  'ZMW',
  'ZWL',
] as const;
export type CodigoMoneda = (typeof CODIGOS_MONEDA)[number];
const MONEDA_SET: ReadonlySet<string> = new Set(CODIGOS_MONEDA);
export const isCodigoMoneda = (v: string): v is CodigoMoneda => MONEDA_SET.has(v);
