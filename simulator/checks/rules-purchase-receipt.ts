// Rules of two document types with parties and layouts of their own (Hacienda's Anexos y Estructuras v4.4),
// applied to the types whose descriptor lists the `purchase` or the `receipt` check:
// - Factura electrónica de compra (08): issued and signed by its receptor, the buyer, whose
//   identification the clave carries (see issuerElement); the buyer is a Costa Rican taxpayer
//   (01-04) other than the supplier; a foreign supplier (05) has no Costa Rican Ubicacion and a
//   domestic one (01-04) has one; its InformacionReferencia says what the supplier gave (14, 16
//   or 99), and 16 "proveedor no domiciliado" goes with Codigo 11 and a foreign supplier.
// - Recibo electrónico de pago (10): it references the factura it settles (TipoDocIR 01, Codigo
//   17, Numero a clave of a factura), and its reduced figures add up: each line's IVA 01 at its
//   Tarifa (08 at its FactorCalculoIVA) of SubTotal plus the taxes that enter the IVA's base (02,
//   04, 05, 12); a tax beside the IVA, and IVA 07 whose base the REP does not carry, cannot be
//   recomputed from the receipt (the payment's share of the factura's) and is only not negative;
//   ImpuestoNeto at most Σ Monto (less when the factura's sale was exonerated or the tax assumed:
//   the REP has no Exoneracion element, XSD), MontoTotalLinea = SubTotal + ImpuestoNeto, TotalVentaNeta = Σ SubTotal, TotalImpuesto
//   = Σ ImpuestoNeto, TotalComprobante = TotalVentaNeta + TotalImpuesto, and the MedioPago amounts
//   (when given) add up to TotalComprobante.
// The wordings are the simulator's own (Hacienda's are not published); codes as rule-texts.ts.
import { BASE_TAXES } from './totals.ts';
import type { DocumentTypeDescriptor } from '../../domain/document-types/index.ts';
import { f5, hasTypeCheck, HALF_UNIT, num, row, sum, ZERO } from './rule-context.ts';
import type { Rule } from './rule-context.ts';
import { RULE_CODES as C, totalsCode } from './rule-texts.ts';
import { child, children, text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';
import type { Row } from './verdict.ts';

/** The element of the party that issues (and signs) a document of this type (its descriptor's issuer). */
export function issuerElement(type: DocumentTypeDescriptor | null): 'Emisor' | 'Receptor' {
  return type?.xml.issuer === 'receptor' ? 'Receptor' : 'Emisor';
}

export const PURCHASE_RECEIPT_TEXTS = {
  buyerType: (tipo: string) =>
    `El receptor de una factura electrónica de compra es el contribuyente que la emite: su identificación no puede ser del tipo ${tipo}.`,
  sameParty: 'El emisor y el receptor de la factura electrónica de compra son el mismo contribuyente.',
  foreignLocation:
    'Un emisor extranjero no domiciliado (tipo 05) no lleva Ubicacion en Costa Rica; use OtrasSenasExtranjero.',
  domesticLocation: (tipo: string) =>
    `El emisor de tipo ${tipo} de una factura electrónica de compra debe indicar su Ubicacion.`,
  purchaseReference:
    'La factura electrónica de compra debe referenciar el comprobante del proveedor (TipoDocIR 14, 16 o 99).',
  nonDomiciled:
    'La referencia 16 (proveedor no domiciliado) corresponde a un emisor de tipo 05 con Codigo 11.',
  receiptReference:
    'El recibo electrónico de pago debe referenciar la factura electrónica que paga (TipoDocIR 01, Codigo 17 y su clave).',
  receiptLine: (n: string, field: string, expected: string, got: string) =>
    `Línea ${n} del recibo: ${field} debería ser ${expected} y es ${got}.`,
  receiptNetTax: (n: string, taxes: string, got: string) =>
    `Línea ${n} del recibo: ImpuestoNeto (${got}) no puede ser mayor que el impuesto (${taxes}).`,
  receiptTotal: (field: string, expected: string, got: string) =>
    `Resumen del recibo: ${field} debería ser ${expected} y es ${got}.`,
} as const;
const T = PURCHASE_RECEIPT_TEXTS;

const FACTURA_CLAVE = /^506\d{6}[A-Za-z0-9]{12}\d{3}\d{5}01\d{10}[123]\d{8}$/;

function idOf(party: XmlElement | null): { tipo: string; numero: string } {
  const id = child(party, 'Identificacion');
  return { tipo: text(id, 'Tipo') ?? '', numero: (text(id, 'Numero') ?? '').replace(/^0+/, '') };
}

export const purchaseRule: Rule = ({ root, tipo }) => {
  if (!hasTypeCheck(tipo, 'purchase')) return [];
  const rows: Row[] = [];
  const emisor = child(root, 'Emisor');
  const receptor = child(root, 'Receptor');
  const seller = idOf(emisor);
  const buyer = idOf(receptor);
  if (receptor && !['01', '02', '03', '04'].includes(buyer.tipo))
    rows.push(row(C.identification, T.buyerType(buyer.tipo)));
  if (seller.numero !== '' && seller.numero === buyer.numero) rows.push(row(C.identification, T.sameParty));
  const ubicacion = child(emisor, 'Ubicacion');
  if (seller.tipo === '05' && ubicacion) rows.push(row(C.partyLocation, T.foreignLocation));
  if (['01', '02', '03', '04'].includes(seller.tipo) && !ubicacion)
    rows.push(row(C.partyLocation, T.domesticLocation(seller.tipo)));
  const refs = children(root, 'InformacionReferencia');
  if (!refs.some((r) => ['14', '16', '99'].includes(text(r, 'TipoDocIR') ?? '')))
    rows.push(row(C.references, T.purchaseReference));
  for (const r of refs) {
    if (text(r, 'TipoDocIR') === '16' && (seller.tipo !== '05' || text(r, 'Codigo') !== '11'))
      rows.push(row(C.references, T.nonDomiciled));
  }
  return rows;
};

export const receiptRule: Rule = ({ root, tipo }) => {
  if (!hasTypeCheck(tipo, 'receipt')) return [];
  const rows: Row[] = [];
  const refs = children(root, 'InformacionReferencia');
  if (
    !refs.some(
      (r) =>
        text(r, 'TipoDocIR') === '01' &&
        text(r, 'Codigo') === '17' &&
        FACTURA_CLAVE.test(text(r, 'Numero') ?? ''),
    )
  )
    rows.push(row(C.references, T.receiptReference));

  const subTotals = [];
  const netTaxes = [];
  for (const line of children(child(root, 'DetalleServicio'), 'LineaDetalle')) {
    const n = text(line, 'NumeroLinea') ?? '?';
    const subTotal = num(line, 'SubTotal') ?? ZERO;
    const impuestos = children(line, 'Impuesto');
    // The IVA's base: SubTotal plus the taxes that enter it (02, 04, 05, 12).
    const base = subTotal.plus(
      sum(
        impuestos.filter((t) => BASE_TAXES.has(text(t, 'Codigo') ?? '')).map((t) => num(t, 'Monto') ?? ZERO),
      ),
    );
    let taxes = ZERO;
    for (const tax of impuestos) {
      const codigo = text(tax, 'Codigo') ?? '';
      const monto = num(tax, 'Monto') ?? ZERO;
      const tarifa = num(tax, 'Tarifa');
      const factor = num(tax, 'FactorCalculoIVA');
      // IVA 01 at its Tarifa and 08 at its factor follow from the line; IVA 07 (its base is not on
      // the receipt) and the taxes beside the IVA (the factura's quantities are not either) do not.
      const exact =
        codigo === '01' && tarifa !== null
          ? base.times(tarifa).div(100)
          : codigo === '08' && factor !== null
            ? base.times(factor)
            : null;
      if (exact !== null && monto.minus(exact).abs().gt(HALF_UNIT))
        rows.push(
          row(totalsCode('Impuesto/Monto'), T.receiptLine(n, 'Impuesto/Monto', f5(exact), f5(monto))),
        );
      if (exact === null && monto.lt(0))
        rows.push(row(C.totals, T.receiptLine(n, `Impuesto ${codigo}/Monto`, '≥ 0', f5(monto))));
      taxes = taxes.plus(monto);
    }
    // ImpuestoNeto is the tax less what the settled sale had exonerated (the REP carries no
    // Exoneracion of its own): never more than the tax.
    const neto = num(line, 'ImpuestoNeto') ?? ZERO;
    if (neto.gt(taxes)) rows.push(row(totalsCode('ImpuestoNeto'), T.receiptNetTax(n, f5(taxes), f5(neto))));
    const lineTotal = num(line, 'MontoTotalLinea') ?? ZERO;
    if (!lineTotal.eq(subTotal.plus(neto)))
      rows.push(row(C.totals, T.receiptLine(n, 'MontoTotalLinea', f5(subTotal.plus(neto)), f5(lineTotal))));
    subTotals.push(subTotal);
    netTaxes.push(neto);
  }
  const resumen = child(root, 'ResumenFactura');
  const expect = (field: string, expected: ReturnType<typeof sum>) => {
    const got = num(resumen, field) ?? ZERO;
    if (!got.eq(expected)) rows.push(row(totalsCode(field), T.receiptTotal(field, f5(expected), f5(got))));
  };
  const net = sum(subTotals);
  const tax = sum(netTaxes);
  expect('TotalVentaNeta', net);
  expect('TotalImpuesto', tax);
  expect('TotalComprobante', net.plus(tax));
  const paid = children(resumen, 'MedioPago').map((m) => num(m, 'TotalMedioPago'));
  if (paid.some((p) => p !== null)) expect('TotalComprobante', sum(paid));
  return rows;
};
