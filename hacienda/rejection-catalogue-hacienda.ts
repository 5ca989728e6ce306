// Catalogue entries for Hacienda's own numbered checks, as its real answers use them (v4.2–4.4;
// codes and wordings in SOURCES.md). Each matches the code AND the words Hacienda writes for that
// check, so a code seen with another text falls through to a later entry or to Hacienda's own words.
import { coded, codedAny, fixed } from './rejection-entry.ts';
import type { Entry } from './rejection-entry.ts';

/** The amount Hacienda writes in parentheses at the end of some messages ("… (258.27750)"). */
export function amountOf(message: string): string | null {
  return /\((-?\d+(?:\.\d+)?)\)\s*\.?\s*$/.exec(message)?.[1] ?? null;
}

/** An entry for a total whose message may end with the amount Hacienda computed. */
function total(
  id: string,
  field: string,
  match: Entry['match'],
  es: [string, string],
  en: [string, string],
): Entry {
  return {
    id,
    field,
    match,
    explain: (row) => {
      const amount = amountOf(row.message);
      return {
        field,
        readable: {
          es: amount ? `${es[0].slice(0, -1)} (Hacienda calculó ${amount}).` : es[0],
          en: amount ? `${en[0].slice(0, -1)} (Hacienda computed ${amount}).` : en[0],
        },
        fix: { es: es[1], en: en[1] },
      };
    },
  };
}

export const HACIENDA_ENTRIES: Entry[] = [
  fixed(
    'extemporaneo',
    'FechaEmision',
    coded(-16, /extempor[aá]ne|fuera del plazo|plazo/i),
    [
      'El comprobante se envió a Hacienda fuera del plazo permitido después de su FechaEmision.',
      'Envíe cada comprobante en cuanto se emite (la FechaEmision es la de la venta); tras una contingencia siga el procedimiento de contingencia.',
    ],
    [
      'The document reached Hacienda after the allowed period following its FechaEmision.',
      'Send each document as soon as it is issued (FechaEmision is the sale date); after an outage follow the contingency procedure.',
    ],
  ),
  fixed(
    'ubicacion',
    'Emisor/Ubicacion',
    coded(-37, /provincia|cant[oó]n|distrito|ubicaci[oó]n/i),
    [
      'La provincia, cantón y distrito del emisor (Emisor/Ubicacion) no coinciden con los registrados en Tributación.',
      'Use en Emisor/Ubicacion los códigos de su registro tributario, o actualice su domicilio en Hacienda.',
    ],
    [
      "The emisor's province, canton and district (Emisor/Ubicacion) do not match those registered with the tax administration.",
      'Use the codes of your tax registration in Emisor/Ubicacion, or update your address with Hacienda.',
    ],
  ),
  fixed(
    'linea-subtotal',
    'SubTotal',
    coded(-44, /sub\s*total/i),
    [
      'El SubTotal de una línea no es su MontoTotal menos el MontoDescuento.',
      'Calcule SubTotal = MontoTotal − MontoDescuento en cada LineaDetalle, con 5 decimales.',
    ],
    [
      "A line's SubTotal is not its MontoTotal minus its MontoDescuento.",
      'Compute SubTotal = MontoTotal − MontoDescuento on each LineaDetalle, with 5 decimals.',
    ],
  ),
  {
    id: 'linea-impuesto',
    field: 'Impuesto/Monto',
    match: coded(-45, /impuesto|tarifa/i),
    explain: (row) => {
      const line = /l[ií]nea\s*\(?(\d+)\)?/i.exec(row.message)?.[1];
      const amount = amountOf(row.message);
      const which = line ? { es: ` de la línea ${line}`, en: ` of line ${line}` } : { es: '', en: '' };
      const calc = amount
        ? { es: ` (Hacienda calculó ${amount})`, en: ` (Hacienda computed ${amount})` }
        : { es: '', en: '' };
      return {
        field: 'Impuesto/Monto',
        readable: {
          es: `El Monto del impuesto (Impuesto/Monto)${which.es} no es su base imponible por la Tarifa${calc.es}.`,
          en: `The tax amount (Impuesto/Monto)${which.en} is not its taxable base times the Tarifa${calc.en}.`,
        },
        fix: {
          es: 'Calcule Impuesto/Monto = BaseImponible × Tarifa / 100 en cada línea, con 5 decimales.',
          en: 'Compute Impuesto/Monto = BaseImponible × Tarifa / 100 on each line, with 5 decimals.',
        },
      };
    },
  },
  total(
    'total-venta',
    'TotalVenta',
    coded(-51, /total\s+(de\s+(la\s+)?)?venta(?!\s*neta)|TotalVenta(?!Neta)/i),
    [
      'El TotalVenta no es la suma de TotalGravado, TotalExento, TotalExonerado y TotalNoSujeto.',
      'Calcule TotalVenta = TotalGravado + TotalExento + TotalExonerado + TotalNoSujeto (la suma de MontoTotal de las líneas).',
    ],
    [
      'TotalVenta is not the sum of TotalGravado, TotalExento, TotalExonerado and TotalNoSujeto.',
      'Compute TotalVenta = TotalGravado + TotalExento + TotalExonerado + TotalNoSujeto (the sum of the lines’ MontoTotal).',
    ],
  ),
  fixed(
    'total-venta-neta',
    'TotalVentaNeta',
    coded(-53, /venta\s*neta/i),
    [
      'El TotalVentaNeta no es el TotalVenta menos el TotalDescuentos.',
      'Calcule TotalVentaNeta = TotalVenta − TotalDescuentos.',
    ],
    [
      'TotalVentaNeta is not TotalVenta minus TotalDescuentos.',
      'Compute TotalVentaNeta = TotalVenta − TotalDescuentos.',
    ],
  ),
  total(
    'total-impuesto',
    'TotalImpuesto',
    coded(-54, /impuesto/i),
    [
      'El TotalImpuesto no es la suma de los impuestos de las líneas.',
      'Calcule TotalImpuesto como la suma de Impuesto/Monto (menos las exoneraciones: ImpuestoNeto) de todas las líneas.',
    ],
    [
      'TotalImpuesto is not the sum of the lines’ taxes.',
      'Compute TotalImpuesto as the sum of every line’s Impuesto/Monto (less exonerations: ImpuestoNeto).',
    ],
  ),
  total(
    'total-comprobante',
    'TotalComprobante',
    coded(-55, /comprobante/i),
    [
      'El TotalComprobante no es TotalVentaNeta más TotalImpuesto más TotalOtrosCargos menos TotalIVADevuelto.',
      'Calcule TotalComprobante = TotalVentaNeta + TotalImpuesto + TotalOtrosCargos − TotalIVADevuelto.',
    ],
    [
      'TotalComprobante is not TotalVentaNeta plus TotalImpuesto plus TotalOtrosCargos minus TotalIVADevuelto.',
      'Compute TotalComprobante = TotalVentaNeta + TotalImpuesto + TotalOtrosCargos − TotalIVADevuelto.',
    ],
  ),
  fixed(
    'plazo-credito',
    'PlazoCredito',
    coded(-58, /plazo/i),
    [
      'El PlazoCredito no tiene la estructura requerida.',
      'En ventas a crédito indique en PlazoCredito el número de días del crédito (solo dígitos).',
    ],
    [
      'PlazoCredito does not have the required structure.',
      'On credit sales give the number of credit days in PlazoCredito (digits only).',
    ],
  ),
  fixed(
    'consecutivo-estructura',
    'NumeroConsecutivo',
    coded(-78, /consecutiv|numeraci[oó]n/i),
    [
      'El NumeroConsecutivo no sigue la estructura del consecutivo (sucursal, terminal, tipo de comprobante y número).',
      'Forme NumeroConsecutivo con 3 dígitos de sucursal, 5 de terminal, 2 del tipo de comprobante y 10 del número (desde 1).',
    ],
    [
      'NumeroConsecutivo does not follow the consecutivo structure (branch, terminal, document type and number).',
      'Build NumeroConsecutivo from 3 branch digits, 5 terminal digits, 2 document-type digits and a 10-digit number (from 1).',
    ],
  ),
  fixed(
    'duplicate-consecutivo',
    'NumeroConsecutivo',
    coded(-99, /numeraci[oó]n consecutiva|consecutivo/i),
    [
      'El NumeroConsecutivo ya fue usado por otro comprobante del mismo emisor, sucursal, terminal y tipo.',
      'Emita el comprobante de nuevo con el siguiente NumeroConsecutivo libre; nunca reutilice un número.',
    ],
    [
      'The NumeroConsecutivo was already used by another document of the same emisor, branch, terminal and type.',
      'Issue the document again with the next free NumeroConsecutivo; never reuse a number.',
    ],
  ),
  fixed(
    'exonerado-mercancias',
    'TotalMercExonerada',
    coded(-106, /exonera/i),
    [
      'El total de mercancías exoneradas (TotalMercExonerada) no coincide con las exoneraciones de las líneas.',
      'Sume en TotalMercExonerada la parte exonerada del MontoTotal de cada línea de mercancía con Exoneracion.',
    ],
    [
      'The exonerated goods total (TotalMercExonerada) does not match the lines’ exonerations.',
      'Add to TotalMercExonerada the exonerated share of the MontoTotal of each goods line with an Exoneracion.',
    ],
  ),
  fixed(
    'mercancias-gravadas-falta',
    'TotalMercanciasGravadas',
    // -48 in v4.3 answers (an observation), -110 in 4.4.
    codedAny([-48, -110], /carece|mercanc[ií]as gravad|TotalMercanciasGravadas/i),
    [
      'Hay líneas de mercancías gravadas pero el resumen no trae TotalMercanciasGravadas.',
      'Incluya TotalMercanciasGravadas en ResumenFactura con la suma del MontoTotal de las líneas de mercancías gravadas.',
    ],
    [
      'There are taxed goods lines but the summary has no TotalMercanciasGravadas.',
      'Include TotalMercanciasGravadas in ResumenFactura with the sum of the taxed goods lines’ MontoTotal.',
    ],
  ),
  {
    id: 'totals',
    field: 'TotalServGravados',
    match: coded(-111, /gravad|servicio|mercanc|no coincide|suma/i),
    explain: (row) => {
      const field = /mercanc/i.test(row.message) ? 'TotalMercanciasGravadas' : 'TotalServGravados';
      const named = /Total[A-Z][A-Za-z]+/.exec(row.message)?.[0] ?? field;
      return {
        field: named,
        readable: {
          es: `El total ${named} no coincide con la suma de las líneas de ese grupo (servicios o mercancías).`,
          en: `The total ${named} does not match the sum of that group's lines (services or goods).`,
        },
        fix: {
          es: `Clasifique cada línea como servicio o mercancía (unidad de medida y CABYS) y sume en ${named} el MontoTotal de sus líneas gravadas.`,
          en: `Classify each line as a service or goods (unit of measure and CABYS) and add the MontoTotal of its taxed lines into ${named}.`,
        },
      };
    },
  },
  fixed(
    'impuesto-neto',
    'ImpuestoNeto',
    coded(-290, /impuesto\s*neto|ImpuestoNeto/i),
    [
      'El ImpuestoNeto de una línea no es el Monto del impuesto menos el monto exonerado.',
      'Calcule ImpuestoNeto = Impuesto/Monto − Exoneracion/MontoExoneracion (− ImpuestoAsumidoEmisorFabrica) en cada línea.',
    ],
    [
      "A line's ImpuestoNeto is not the tax Monto minus the exonerated amount.",
      'Compute ImpuestoNeto = Impuesto/Monto − Exoneracion/MontoExoneracion (− ImpuestoAsumidoEmisorFabrica) on each line.',
    ],
  ),
];
