// The taxes of a line beside the IVA, recomputed from the line's own figures as Hacienda does
// (-111 family; XSD annotations of ImpuestoType, DatosImpuestoEspecifico and IVACobradoFabrica).
// Written on its own, not shared with the issuer's domain/other-taxes.ts. Where the annotations
// admit several readings every one is accepted and only what none explains is refused:
//
//   02, 12 (and 99 with a Tarifa)  Monto = SubTotal × Tarifa / 100 (99: of SubTotal or BaseImponible)
//   03, 06                          Monto = Cantidad × CantidadUnidadMedida × ImpuestoUnidad
//   04                              Proporcion = CantidadUnidadMedida × Porcentaje (/ 100 or not);
//                                   Monto = Cantidad × Proporcion × ImpuestoUnidad
//   05                              Monto = Cantidad × CantidadUnidadMedida [÷ VolumenUnidadConsumo]
//                                   × ImpuestoUnidad, or Cantidad × VolumenUnidadConsumo × ImpuestoUnidad
//   08 (IVA bienes usados)          Monto = BaseImponible × FactorCalculoIVA, the factor mandatory
//
// 03-06 need DatosImpuestoEspecifico, 99 needs CodigoImpuestoOTRO, and a line with
// IVACobradoFabrica 02 (exempt, IVA paid at the factory) carries no IVA Impuesto.
import { Decimal } from 'decimal.js';
import { HACIENDA_TEXTS, totalsCode } from './rule-texts.ts';
import { child, children, text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';

const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
type D = InstanceType<typeof Dec>;
const HALF_UNIT = new Dec('0.000005');
const DECIMAL = /^\s*\d+(\.\d+)?\s*$/;
const IVA_CODES = new Set(['01', '07', '08']);
const SPECIFIC = new Set(['03', '04', '05', '06']);

function num(el: XmlElement | null | undefined, ...path: string[]): D | null {
  const t = text(el, ...path);
  return t !== null && DECIMAL.test(t) ? new Dec(t.trim()) : null;
}
const f5 = (d: D) => d.toFixed(5);
/** A stated 5-decimal amount matches an exact product when within half a unit of the 5th decimal. */
const near = (got: D, exact: D) => got.minus(exact).abs().lte(HALF_UNIT);

/** Problems with the taxes of one line, as DetalleMensaje rows (code and sentence). */
export function checkLineTaxes(line: XmlElement): { code: number; message: string }[] {
  const out: { code: number; message: string }[] = [];
  const own = (message: string) => out.push({ code: -1, message });
  const n = text(line, 'NumeroLinea') ?? '?';
  const cantidad = num(line, 'Cantidad');
  const subTotal = num(line, 'SubTotal');
  const base = num(line, 'BaseImponible');
  // A tax at a rate (subtotal × Tarifa) is Hacienda's -45, in its words; the specific taxes' formulas are ours (-1).
  const bad = (codigo: string, what: string, candidates: D[], got: D) =>
    out.push(
      /× Tarifa$/.test(what)
        ? { code: totalsCode('Impuesto/Monto'), message: HACIENDA_TEXTS.lineTax(n, f5(candidates[0]!)) }
        : {
            code: -1,
            message: `El campo Monto del impuesto ${codigo} de la línea ${n} no coincide con ${what}: se esperaba ${f5(candidates[0]!)} y se recibió ${f5(got)}.`,
          },
    );
  const taxes = children(line, 'Impuesto');
  if (text(line, 'IVACobradoFabrica') === '02' && taxes.some((t) => IVA_CODES.has(text(t, 'Codigo') ?? '')))
    own(
      `La línea ${n} indica IVACobradoFabrica 02 (exento por cobro a nivel de fábrica) y no debe incluir el impuesto al valor agregado.`,
    );
  for (const t of taxes) {
    const codigo = text(t, 'Codigo') ?? '';
    const monto = num(t, 'Monto');
    const tarifa = num(t, 'Tarifa');
    const datos = child(t, 'DatosImpuestoEspecifico');
    if (SPECIFIC.has(codigo) && !datos) {
      own(`El impuesto ${codigo} de la línea ${n} requiere el nodo DatosImpuestoEspecifico.`);
      continue;
    }
    if (codigo === '99' && !text(t, 'CodigoImpuestoOTRO'))
      own(`El impuesto 99 (Otros) de la línea ${n} requiere el campo CodigoImpuestoOTRO.`);
    if (codigo === '08') {
      const factor = num(t, 'FactorCalculoIVA');
      if (!factor) {
        own(`El impuesto 08 (IVA bienes usados) de la línea ${n} requiere el campo FactorCalculoIVA.`);
      } else if (monto && base && !near(monto, base.times(factor))) {
        bad(codigo, 'BaseImponible × FactorCalculoIVA', [base.times(factor)], monto);
      }
    }
    if (!monto) continue;
    if ((codigo === '02' || codigo === '12') && tarifa && subTotal) {
      const exact = subTotal.times(tarifa).div(100);
      if (!near(monto, exact)) bad(codigo, 'SubTotal × Tarifa', [exact], monto);
    }
    if (codigo === '99' && tarifa && subTotal) {
      const readings = [subTotal, base].flatMap((b) => (b ? [b.times(tarifa).div(100)] : []));
      if (!readings.some((x) => near(monto, x))) bad(codigo, 'SubTotal × Tarifa', readings, monto);
    }
    if (!datos || !SPECIFIC.has(codigo) || !cantidad) continue;
    const unidades = num(datos, 'CantidadUnidadMedida');
    const porUnidad = num(datos, 'ImpuestoUnidad');
    if (!unidades || !porUnidad) continue;
    if (codigo === '03' || codigo === '06') {
      const exact = cantidad.times(unidades).times(porUnidad);
      if (!near(monto, exact))
        bad(codigo, 'Cantidad × CantidadUnidadMedida × ImpuestoUnidad', [exact], monto);
    } else if (codigo === '04') {
      const porcentaje = num(datos, 'Porcentaje');
      const proporcion = num(datos, 'Proporcion');
      if (!porcentaje || !proporcion) {
        own(`El impuesto 04 de la línea ${n} requiere los campos Porcentaje y Proporcion.`);
        continue;
      }
      const proporciones = [unidades.times(porcentaje).div(100), unidades.times(porcentaje)];
      if (!proporciones.some((p) => near(proporcion, p)))
        own(
          `El campo Proporcion del impuesto 04 de la línea ${n} no coincide con CantidadUnidadMedida × Porcentaje: se esperaba ${f5(proporciones[0]!)} y se recibió ${f5(proporcion)}.`,
        );
      const exact = cantidad.times(proporcion).times(porUnidad);
      if (!near(monto, exact)) bad(codigo, 'Cantidad × Proporcion × ImpuestoUnidad', [exact], monto);
    } else {
      const volumen = num(datos, 'VolumenUnidadConsumo');
      if (!volumen || volumen.isZero()) {
        own(`El impuesto 05 de la línea ${n} requiere el campo VolumenUnidadConsumo.`);
        continue;
      }
      const readings = [
        cantidad.times(unidades).div(volumen).times(porUnidad),
        cantidad.times(unidades).times(porUnidad),
        cantidad.times(volumen).times(porUnidad),
      ];
      if (!readings.some((x) => near(monto, x)))
        bad(
          codigo,
          'Cantidad × CantidadUnidadMedida / VolumenUnidadConsumo × ImpuestoUnidad',
          readings,
          monto,
        );
    }
  }
  return out;
}

/** The IVA (01) of a line net of its exoneration: what TotalIVADevuelto may return at most. */
export function lineNetIva(line: XmlElement): D {
  let acc = new Dec(0);
  for (const t of children(line, 'Impuesto')) {
    if (text(t, 'Codigo') !== '01') continue;
    acc = acc.plus(num(t, 'Monto') ?? 0).minus(num(t, 'Exoneracion', 'MontoExoneracion') ?? 0);
  }
  return acc;
}

/** Lines of IVA whose subset may be the health services of a mixed sale; beyond it, a bound. */
const MAX_SUBSET_LINES = 12;

/**
 * TotalIVADevuelto of a sale paid partly by card (MedioPago 02 beside other kinds), by the 2026
 * mixed-sale formula: monto pagado con tarjeta / venta neta × monto del impuesto. The XML does not
 * mark which lines are the health services, so every set of lines with IVA is a reading (their
 * Σ SubTotal the venta neta, their Σ net IVA the impuesto; a card amount above that venta neta
 * returns the whole IVA); only an amount no reading explains is refused. With more than
 * MAX_SUBSET_LINES such lines, the amount may not exceed the card amount at the highest IVA rate.
 */
export function checkMixedIvaDevuelto(
  resumen: XmlElement,
  lines: readonly { subTotal: D | null; netIva: D }[],
): string[] {
  const devuelto = num(resumen, 'TotalIVADevuelto');
  const medios = children(resumen, 'MedioPago');
  const card = medios.filter((m) => text(m, 'TipoMedioPago') === '02');
  if (!devuelto || card.length === 0 || card.length === medios.length) return [];
  const amounts = card.map((m) => num(m, 'TotalMedioPago'));
  if (amounts.some((a) => a === null))
    return [
      'El campo TotalIVADevuelto de una venta pagada en parte con tarjeta requiere el campo TotalMedioPago del medio de pago 02 (Tarjeta).',
    ];
  const paid = amounts.reduce<D>((a, b) => a.plus(b!), new Dec(0));
  const iva = lines.filter((l) => l.netIva.gt(0) && l.subTotal && l.subTotal.gt(0));
  const explains = (venta: D, impuesto: D) =>
    paid.gte(venta) ? devuelto.eq(impuesto) : near(devuelto, paid.times(impuesto).div(venta));
  let ok = false;
  if (iva.length <= MAX_SUBSET_LINES) {
    for (let mask = 1; mask < 1 << iva.length && !ok; mask++) {
      let venta = new Dec(0);
      let impuesto = new Dec(0);
      iva.forEach((l, i) => {
        if (mask & (1 << i)) {
          venta = venta.plus(l.subTotal!);
          impuesto = impuesto.plus(l.netIva);
        }
      });
      ok = explains(venta, impuesto);
    }
  } else {
    const top = iva.reduce<D>((m, l) => Dec.max(m, l.netIva.div(l.subTotal!)), new Dec(0));
    ok = devuelto.lte(paid.times(top).plus(HALF_UNIT));
  }
  return ok
    ? []
    : [
        `El campo TotalIVADevuelto (${f5(devuelto)}) no coincide con el monto pagado con tarjeta (${f5(paid)}) / venta neta × monto del impuesto de los servicios de salud del comprobante.`,
      ];
}
