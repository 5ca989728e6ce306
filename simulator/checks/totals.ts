// Independent recomputation of a comprobante's amounts from its own XML, as Hacienda does after
// the schema check (the v4.4 XSD and its Anexos), each mismatch under Hacienda's code for that
// total (rule-texts.ts TOTALS_CODES: -44 line SubTotal, -45 line tax, -51 TotalVenta, -53
// TotalVentaNeta, -54 TotalImpuesto, -55 TotalComprobante, -106, -110, -111, -290) or -1. Deliberately separate from domain/totals.ts:
// a test double that shared the issuer's arithmetic could never catch the issuer's mistakes.
//
// Tolerance: none beyond 5-decimal rounding. A product (Cantidad × PrecioUnitario, base × tarifa)
// may differ from the exact value by at most half a unit of the 5th decimal; sums and differences
// of stated values must be exact.
//
// Where the regulation is ambiguous the check accepts every reading and only rejects what no
// reading explains: goods vs services follows either the CABYS section (5–9 = services) or the
// unit of measure; the gravado/exento/exonerado/no-sujeto buckets are checked for lines with one
// IVA tax (an exonerated line puts the share TarifaExonerada / Tarifa of its MontoTotal in
// exonerado and the rest in gravado, each share within half a unit of the 5th decimal); TotalImpuesto
// may be the sum of Monto or of ImpuestoNeto. An exoneration's MontoExoneracion is
// BaseImponible × TarifaExonerada / 100 and TarifaExonerada never exceeds the line's Tarifa.
// The taxes beside the IVA are recomputed by totals-taxes.ts; TotalImpAsumEmisorFabrica is the sum
// of the lines' ImpuestoAsumidoEmisorFabrica, and TotalIVADevuelto (health services paid by card)
// needs a card payment, never exceeds the lines' net IVA and, in a sale paid partly by card,
// follows the 2026 mixed-sale formula (totals-taxes.ts checkMixedIvaDevuelto).
import { Decimal } from 'decimal.js';
import { HACIENDA_TEXTS, totalsCode } from './rule-texts.ts';
import { checkLineTaxes, checkMixedIvaDevuelto, lineNetIva } from './totals-taxes.ts';
import { child, children, text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';
import type { Row } from './verdict.ts';

const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
type D = InstanceType<typeof Dec>;
const ZERO = new Dec(0);
const HALF_UNIT = new Dec('0.000005');
const DECIMAL = /^\s*\d+(\.\d+)?\s*$/;

// Units whose XSD label names a service (or a charge for one), plus units of time.
const SERVICE_UNITS = new Set(['Sp', 'Spe', 'St', 'Os', 'Al', 'Alc', 'Cm', 'I', 'h', 'D', 'Min', 'S']);
/** The taxes added to the IVA's BaseImponible (XSD annotation of BaseImponible). */
export const BASE_TAXES: ReadonlySet<string> = new Set(['02', '04', '05', '12']);

function num(el: XmlElement | null | undefined, ...path: string[]): D | null {
  const t = text(el, ...path);
  return t !== null && DECIMAL.test(t) ? new Dec(t.trim()) : null;
}
const f5 = (d: D) => d.toFixed(5);
const sum = (ds: (D | null)[]) => ds.reduce<D>((a, b) => a.plus(b ?? ZERO), ZERO);

interface Line {
  n: string;
  montoTotal: D | null;
  subTotal: D | null;
  descuentos: D;
  /** Bucket by CodigoTarifaIVA when the line has one IVA tax, else null. */
  bucket: 'gravado' | 'exento' | 'noSujeto' | 'exonerado' | null;
  /** The exact exonerated share of MontoTotal (TarifaExonerada / Tarifa), for an exonerated line. */
  exoneradoShare: D;
  serviceByCabys: boolean;
  serviceByUnit: boolean;
  montoImpuesto: D;
  impuestoNeto: D | null;
  asumido: D;
  netIva: D;
  taxes: { codigo: string; tarifaCode: string; monto: D | null; exonerado: D }[];
}

export function checkTotals(root: XmlElement): Row[] {
  const rows: Row[] = [];
  const mismatch = (message: string, code: number) => rows.push({ code, message, line: 0, column: 0 });
  const lines = children(child(root, 'DetalleServicio'), 'LineaDetalle').map((el) => readLine(el, mismatch));
  const resumen = child(root, 'ResumenFactura');
  if (!resumen) return rows;
  const r = (name: string) => num(resumen, name) ?? ZERO;
  // `what` says what the total should be; Hacienda's own sentence (HACIENDA_TEXTS) where it is known.
  const stated = (name: string, expected: D, what: string | ((expected: string) => string)) => {
    const got = num(resumen, name) ?? ZERO;
    if (!got.eq(expected)) {
      mismatch(
        typeof what === 'string'
          ? `El campo ${name} no coincide con ${what}: se esperaba ${f5(expected)} y se recibió ${f5(got)}.`
          : what(f5(expected)),
        totalsCode(name),
      );
    }
  };

  // 1. Goods vs services: each side's buckets must add up to the MontoTotal of its lines.
  const serv = ['TotalServGravados', 'TotalServExentos', 'TotalServExonerado', 'TotalServNoSujeto'];
  const merc = [
    'TotalMercanciasGravadas',
    'TotalMercanciasExentas',
    'TotalMercExonerada',
    'TotalMercNoSujeta',
  ];
  const servTotal = sum(serv.map((n) => r(n)));
  const mercTotal = sum(merc.map((n) => r(n)));
  const readings = [(l: Line) => l.serviceByCabys, (l: Line) => l.serviceByUnit];
  // Taxed goods (by every reading) but no TotalMercanciasGravadas at all: Hacienda's -110.
  const taxedGoods = (isService: (l: Line) => boolean) =>
    lines.some((l) => !isService(l) && l.bucket === 'gravado' && l.montoTotal?.gt(0));
  if (!child(resumen, 'TotalMercanciasGravadas') && readings.every(taxedGoods))
    mismatch(HACIENDA_TEXTS.mercanciasGravadasMissing, totalsCode('TotalMercanciasGravadas?'));
  const reading = readings.find((isService) => {
    const s = sum(lines.filter(isService).map((l) => l.montoTotal));
    const g = sum(lines.filter((l) => !isService(l)).map((l) => l.montoTotal));
    return s.eq(servTotal) && g.eq(mercTotal);
  });
  if (!reading) {
    const isService = readings[0]!;
    const s = sum(lines.filter(isService).map((l) => l.montoTotal));
    const g = sum(lines.filter((l) => !isService(l)).map((l) => l.montoTotal));
    if (!s.eq(servTotal)) {
      mismatch(
        `La suma de los totales de servicios (gravados, exentos, exonerados y no sujetos) no coincide con el total de las líneas de servicios: se esperaba ${f5(s)} y se recibió ${f5(servTotal)}.`,
        totalsCode('TotalServGravados'),
      );
    }
    if (!g.eq(mercTotal)) {
      mismatch(
        `La suma de los totales de mercancías (gravadas, exentas, exoneradas y no sujetas) no coincide con el total de las líneas de mercancías: se esperaba ${f5(g)} y se recibió ${f5(mercTotal)}.`,
        totalsCode('TotalMercanciasGravadas'),
      );
    }
  } else {
    // 2. Buckets within each side, where every line of that side is plain.
    const buckets: [string[], boolean][] = [
      [serv, true],
      [merc, false],
    ];
    for (const [names, service] of buckets) {
      const side = lines.filter((l) => reading(l) === service);
      if (side.some((l) => l.bucket === null)) continue;
      const byBucket = (b: Line['bucket']) =>
        sum(side.filter((l) => l.bucket === b).map((l) => l.montoTotal));
      const what = service ? 'servicios' : 'mercancías';
      // Exonerated lines: the exact shares, each stated share rounded to 5 decimals at most.
      const exonerated = side.filter((l) => l.bucket === 'exonerado');
      const exonerado = sum(exonerated.map((l) => l.exoneradoShare));
      const exoneradoRest = sum(exonerated.map((l) => l.montoTotal)).minus(exonerado);
      const slack = HALF_UNIT.times(exonerated.length);
      const near = (name: string, expected: D, what2: string) => {
        const got = num(resumen, name) ?? ZERO;
        if (got.minus(expected).abs().gt(slack))
          mismatch(
            `El campo ${name} no coincide con ${what2}: se esperaba ${f5(expected)} y se recibió ${f5(got)}.`,
            totalsCode(name),
          );
      };
      near(
        names[0]!,
        byBucket('gravado').plus(exoneradoRest),
        `la suma de las líneas de ${what} gravados (y la parte no exonerada)`,
      );
      stated(names[1]!, byBucket('exento'), `la suma de las líneas de ${what} exentos`);
      near(names[2]!, exonerado, `la parte exonerada de las líneas de ${what}`);
      stated(names[3]!, byBucket('noSujeto'), `la suma de las líneas de ${what} no sujetos`);
    }
  }

  // 3. Summary identities (XSD annotations of ResumenFactura).
  stated(
    'TotalGravado',
    r('TotalServGravados').plus(r('TotalMercanciasGravadas')),
    'TotalServGravados + TotalMercanciasGravadas',
  );
  stated(
    'TotalExento',
    r('TotalServExentos').plus(r('TotalMercanciasExentas')),
    'TotalServExentos + TotalMercanciasExentas',
  );
  stated(
    'TotalExonerado',
    r('TotalServExonerado').plus(r('TotalMercExonerada')),
    'TotalServExonerado + TotalMercExonerada',
  );
  stated(
    'TotalNoSujeto',
    r('TotalServNoSujeto').plus(r('TotalMercNoSujeta')),
    'TotalServNoSujeto + TotalMercNoSujeta',
  );
  stated(
    'TotalVenta',
    sum(['TotalGravado', 'TotalExento', 'TotalExonerado', 'TotalNoSujeto'].map((n) => r(n))),
    HACIENDA_TEXTS.totalVenta,
  );
  stated('TotalVenta', sum(lines.map((l) => l.montoTotal)), 'la suma de MontoTotal de las líneas');
  const discounts = sum(lines.map((l) => l.descuentos));
  stated('TotalDescuentos', discounts, 'la suma de los descuentos de las líneas');
  stated('TotalVentaNeta', r('TotalVenta').minus(r('TotalDescuentos')), 'TotalVenta menos TotalDescuentos');
  const otros = sum(children(root, 'OtrosCargos').map((el) => num(el, 'MontoCargo')));
  stated('TotalOtrosCargos', otros, 'la suma de OtrosCargos');

  const grossTax = sum(lines.map((l) => l.montoImpuesto));
  const netTax = sum(lines.map((l) => l.impuestoNeto));
  const totalImpuesto = r('TotalImpuesto');
  if (!totalImpuesto.eq(grossTax) && !totalImpuesto.eq(netTax)) {
    mismatch(HACIENDA_TEXTS.totalImpuesto, totalsCode('TotalImpuesto'));
  }
  checkDesglose(resumen, lines, mismatch);
  const asumido = sum(lines.map((l) => l.asumido));
  if (child(resumen, 'TotalImpAsumEmisorFabrica') || asumido.gt(0))
    stated('TotalImpAsumEmisorFabrica', asumido, 'la suma de ImpuestoAsumidoEmisorFabrica de las líneas');
  const devuelto = r('TotalIVADevuelto');
  if (devuelto.gt(0)) {
    const iva = sum(lines.map((l) => l.netIva));
    if (devuelto.gt(iva))
      mismatch(
        `El campo TotalIVADevuelto (${f5(devuelto)}) supera el IVA de las líneas del comprobante (${f5(iva)}).`,
        totalsCode('TotalIVADevuelto'),
      );
    const medios = children(resumen, 'MedioPago').map((m) => text(m, 'TipoMedioPago'));
    if (!medios.includes('02'))
      mismatch(
        'El campo TotalIVADevuelto solo procede para servicios de salud pagados con tarjeta: el comprobante no indica el medio de pago 02 (Tarjeta).',
        totalsCode('TotalIVADevuelto'),
      );
    for (const m of checkMixedIvaDevuelto(resumen, lines)) mismatch(m, totalsCode('TotalIVADevuelto'));
  }
  stated(
    'TotalComprobante',
    r('TotalVentaNeta').plus(totalImpuesto).plus(r('TotalOtrosCargos')).minus(r('TotalIVADevuelto')),
    HACIENDA_TEXTS.totalComprobante,
  );
  return rows;
}

function readLine(el: XmlElement, mismatch: (m: string, code: number) => void): Line {
  const n = text(el, 'NumeroLinea') ?? '?';
  const cantidad = num(el, 'Cantidad');
  const precio = num(el, 'PrecioUnitario');
  const montoTotal = num(el, 'MontoTotal');
  const subTotal = num(el, 'SubTotal');
  const base = num(el, 'BaseImponible');
  const near = (got: D, exact: D) => got.minus(exact).abs().lte(HALF_UNIT);
  const bad = (field: string, what: string, expected: D, got: D) =>
    mismatch(
      `El campo ${field} de la línea ${n} no coincide con ${what}: se esperaba ${f5(expected)} y se recibió ${f5(got)}.`,
      totalsCode(field),
    );

  if (cantidad && precio && montoTotal) {
    const exact = cantidad.times(precio);
    if (!near(montoTotal, exact)) bad('MontoTotal', 'Cantidad × PrecioUnitario', exact, montoTotal);
  }
  const descuentos = sum(children(el, 'Descuento').map((d) => num(d, 'MontoDescuento')));
  if (montoTotal && subTotal && !subTotal.eq(montoTotal.minus(descuentos))) {
    bad('SubTotal', 'MontoTotal menos los descuentos', montoTotal.minus(descuentos), subTotal);
  }
  const taxes = children(el, 'Impuesto').map((t) => ({
    codigo: text(t, 'Codigo') ?? '',
    tarifaCode: text(t, 'CodigoTarifaIVA') ?? '',
    tarifa: num(t, 'Tarifa'),
    monto: num(t, 'Monto'),
    exonerado: num(t, 'Exoneracion', 'MontoExoneracion') ?? ZERO,
    tarifaExonerada: num(t, 'Exoneracion', 'TarifaExonerada'),
    hasExoneracion: child(t, 'Exoneracion') !== null,
  }));
  for (const t of taxes) {
    if (!t.hasExoneracion || !t.tarifaExonerada || !t.tarifa || !base) continue;
    if (t.tarifaExonerada.gt(t.tarifa)) {
      mismatch(
        `La TarifaExonerada de la línea ${n} (${t.tarifaExonerada.toFixed(2)}) supera la tarifa del impuesto (${t.tarifa.toFixed(2)}).`,
        totalsCode('TarifaExonerada'),
      );
    }
    const exact = base.times(t.tarifaExonerada).div(100);
    if (!near(t.exonerado, exact))
      bad('MontoExoneracion', 'BaseImponible × TarifaExonerada', exact, t.exonerado);
  }
  const editableBase = text(el, 'IVACobradoFabrica') === '01' || taxes.some((t) => t.codigo === '07');
  if (subTotal && base && !editableBase) {
    const expected = subTotal.plus(sum(taxes.filter((t) => BASE_TAXES.has(t.codigo)).map((t) => t.monto)));
    if (!base.eq(expected)) bad('BaseImponible', 'SubTotal más los impuestos específicos', expected, base);
  }
  for (const t of taxes) {
    if ((t.codigo === '01' || t.codigo === '07') && t.tarifa && t.monto && base) {
      const exact = base.times(t.tarifa).div(100);
      if (!near(t.monto, exact)) mismatch(HACIENDA_TEXTS.lineTax(n, f5(exact)), totalsCode('Impuesto/Monto'));
    }
  }
  const gross = sum(taxes.map((t) => t.monto));
  const exonerado = sum(taxes.map((t) => t.exonerado));
  const asumido = num(el, 'ImpuestoAsumidoEmisorFabrica') ?? ZERO;
  const neto = num(el, 'ImpuestoNeto');
  const netCandidates = [gross.minus(exonerado), gross.minus(exonerado).minus(asumido)];
  if (neto && !netCandidates.some((c) => c.eq(neto))) {
    bad('ImpuestoNeto', 'Monto del impuesto menos la exoneración', netCandidates[0]!, neto);
  }
  const totalLinea = num(el, 'MontoTotalLinea');
  if (subTotal && neto && totalLinea && !totalLinea.eq(subTotal.plus(neto))) {
    bad('MontoTotalLinea', 'SubTotal + ImpuestoNeto', subTotal.plus(neto), totalLinea);
  }
  for (const m of checkLineTaxes(el)) mismatch(m.message, m.code);
  // The bucket follows the line's one IVA (01, 07, 08) whatever other taxes it carries; a line
  // whose IVA was paid at the factory (IVACobradoFabrica 02) is exempt.
  const iva = taxes.filter((t) => ['01', '07', '08'].includes(t.codigo));
  const single = iva.length === 1 ? iva[0]! : null;
  const code = single?.tarifaCode;
  let bucket: Line['bucket'] = !single
    ? iva.length === 0 && text(el, 'IVACobradoFabrica') === '02'
      ? 'exento'
      : null
    : code === '10'
      ? 'exento'
      : code === '11'
        ? 'noSujeto'
        : 'gravado';
  let exoneradoShare = ZERO;
  if (single?.hasExoneracion) {
    const te = single.tarifaExonerada;
    if (te && single.tarifa && single.tarifa.gt(0) && montoTotal) {
      bucket = 'exonerado';
      exoneradoShare = te.gte(single.tarifa) ? montoTotal : montoTotal.times(te).div(single.tarifa);
    } else bucket = null;
  }
  const cabys = text(el, 'CodigoCABYS') ?? '';
  return {
    n,
    montoTotal,
    subTotal,
    descuentos,
    bucket,
    exoneradoShare,
    serviceByCabys: /^[5-9]/.test(cabys),
    serviceByUnit: SERVICE_UNITS.has(text(el, 'UnidadMedida') ?? ''),
    montoImpuesto: gross,
    impuestoNeto: neto,
    asumido,
    netIva: lineNetIva(el),
    taxes: taxes.map(({ codigo, tarifaCode, monto, exonerado: e }) => ({
      codigo,
      tarifaCode,
      monto,
      exonerado: e,
    })),
  };
}

/** TotalDesgloseImpuesto: each stated (Codigo, CodigoTarifaIVA) must equal its lines' tax. */
function checkDesglose(resumen: XmlElement, lines: Line[], mismatch: (m: string, code: number) => void) {
  for (const d of children(resumen, 'TotalDesgloseImpuesto')) {
    const codigo = text(d, 'Codigo') ?? '';
    const tarifa = text(d, 'CodigoTarifaIVA') ?? '';
    const got = num(d, 'TotalMontoImpuesto') ?? ZERO;
    const taxes = lines
      .flatMap((l) => l.taxes)
      .filter((t) => t.codigo === codigo && (tarifa === '' || t.tarifaCode === tarifa));
    const gross = sum(taxes.map((t) => t.monto));
    const net = gross.minus(sum(taxes.map((t) => t.exonerado)));
    if (!got.eq(gross) && !got.eq(net)) {
      mismatch(
        `El campo TotalDesgloseImpuesto/TotalMontoImpuesto del impuesto ${codigo}${tarifa ? ` tarifa ${tarifa}` : ''} no coincide con la suma de las líneas: se esperaba ${f5(gross)} y se recibió ${f5(got)}.`,
        totalsCode('TotalDesgloseImpuesto'),
      );
    }
  }
}
