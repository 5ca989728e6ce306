// Writers for the parts every comprobante shares, each in the exact xs:sequence order of the 2026
// XSDs: parties (EmisorType / ReceptorType), LineaDetalle, OtrosCargos, ResumenFactura,
// InformacionReferencia and Otros. Optional elements are written only when they carry a value.
import { formatCrDateTime } from '../../domain/cr-time.ts';
import {
  formatAmount,
  type DocumentTotals,
  type LineTotals,
  type ResolvedOtherCharge,
} from '../../domain/totals.ts';
import type { ComprobanteKindInfo } from './document-types.ts';
import type {
  DocumentLine,
  Emisor,
  MedioPago,
  OtroTexto,
  PurchaseEmisor,
  Receptor,
  Referencia,
  Telefono,
  Ubicacion,
} from './types.ts';
import type { XmlWriter } from './writer.ts';

function writeIdentificacion(w: XmlWriter, name: string, idType: string, idNumber: string): void {
  w.open(name).leaf('Tipo', idType).leaf('Numero', idNumber).close();
}

function writeUbicacion(w: XmlWriter, u: Ubicacion): void {
  w.open('Ubicacion')
    .leaf('Provincia', u.provincia)
    .leaf('Canton', u.canton)
    .leaf('Distrito', u.distrito)
    .optLeaf('Barrio', u.barrio)
    .leaf('OtrasSenas', u.otrasSenas)
    .close();
}

function writeTelefono(w: XmlWriter, t: Telefono): void {
  w.open('Telefono').leaf('CodigoPais', t.countryCode).leaf('NumTelefono', t.number).close();
}

export function writeEmisor(w: XmlWriter, e: Emisor): void {
  w.open('Emisor').leaf('Nombre', e.name);
  writeIdentificacion(w, 'Identificacion', e.idType, e.idNumber);
  w.optLeaf('Registrofiscal8707', e.registroFiscal8707).optLeaf('NombreComercial', e.commercialName);
  // A factura de compra's emisor may have no Ubicacion (PurchaseEmisor).
  const ubicacion = (e as PurchaseEmisor).ubicacion;
  if (ubicacion) writeUbicacion(w, ubicacion);
  w.optLeaf('OtrasSenasExtranjero', e.otrasSenasExtranjero);
  if (e.phone) writeTelefono(w, e.phone);
  for (const email of e.emails) w.leaf('CorreoElectronico', email);
  w.close();
}

export function writeReceptor(w: XmlWriter, r: Receptor, kind?: ComprobanteKindInfo): void {
  w.open('Receptor').leaf('Nombre', r.name);
  writeIdentificacion(w, 'Identificacion', r.idType, r.idNumber);
  w.optLeaf('NombreComercial', r.commercialName);
  // The FEE's ReceptorType has no Ubicacion: a foreign receptor's address is OtrasSenasExtranjero.
  if (r.ubicacion && kind?.layout !== 'exportacion') writeUbicacion(w, r.ubicacion);
  w.optLeaf('OtrasSenasExtranjero', r.otrasSenasExtranjero);
  if (r.phone) writeTelefono(w, r.phone);
  w.optLeaf('CorreoElectronico', r.email);
  w.close();
}

export function writeLinea(w: XmlWriter, kind: ComprobanteKindInfo, line: DocumentLine, t: LineTotals): void {
  w.open('LineaDetalle').leaf('NumeroLinea', String(t.lineNumber));
  if (kind.partidaArancelaria) w.optLeaf('PartidaArancelaria', line.partidaArancelaria);
  w.leaf('CodigoCABYS', line.cabys);
  for (const c of line.commercialCodes ?? [])
    w.open('CodigoComercial').leaf('Tipo', c.type).leaf('Codigo', c.code).close();
  w.leaf('Cantidad', t.quantity).leaf('UnidadMedida', line.unit);
  if (kind.tipoTransaccion) w.optLeaf('TipoTransaccion', line.transactionType);
  w.optLeaf('UnidadMedidaComercial', line.commercialUnit).leaf('Detalle', line.description);
  for (const s of line.serialNumbers ?? []) w.leaf('NumeroVINoSerie', s);
  w.optLeaf('RegistroMedicamento', line.registroMedicamento)
    .optLeaf('FormaFarmaceutica', line.formaFarmaceutica)
    .leaf('PrecioUnitario', t.unitPrice)
    .leaf('MontoTotal', t.montoTotal);
  for (const d of t.discounts) {
    w.open('Descuento')
      .leaf('MontoDescuento', d.amount)
      .leaf('CodigoDescuento', d.code)
      .optLeaf('CodigoDescuentoOTRO', d.codeOther)
      .leaf('NaturalezaDescuento', d.nature)
      .close();
  }
  const exportacion = kind.layout === 'exportacion';
  w.leaf('SubTotal', t.subTotal);
  if (!exportacion)
    w.optLeaf('IVACobradoFabrica', t.ivaCollectedAtFactory).leaf('BaseImponible', t.baseImponible);
  for (const tax of t.taxes) {
    // Tarifa is written for every IVA line, 0.00 included, so the rate is explicit; the specific
    // taxes (03-06) have DatosImpuestoEspecifico instead.
    w.open('Impuesto')
      .leaf('Codigo', tax.code)
      .optLeaf('CodigoImpuestoOTRO', tax.codeOther)
      .optLeaf('CodigoTarifaIVA', tax.ivaRateCode)
      .optLeaf('Tarifa', tax.rate)
      .optLeaf('FactorCalculoIVA', tax.factor);
    const sp = tax.specific;
    if (sp) {
      w.open('DatosImpuestoEspecifico')
        .leaf('CantidadUnidadMedida', sp.unitQuantity)
        .optLeaf('Porcentaje', sp.alcoholPercent)
        .optLeaf('Proporcion', sp.proportion)
        .optLeaf('VolumenUnidadConsumo', sp.consumptionVolume)
        .leaf('ImpuestoUnidad', sp.taxPerUnit)
        .close();
    }
    w.leaf('Monto', tax.amount);
    const ex = exportacion ? undefined : tax.exoneration;
    if (ex) {
      w.open('Exoneracion')
        .leaf('TipoDocumentoEX1', ex.docType)
        .optLeaf('TipoDocumentoOTRO', ex.docTypeOther)
        .leaf('NumeroDocumento', ex.number)
        .optLeaf('Articulo', ex.article)
        .optLeaf('Inciso', ex.inciso)
        .leaf('NombreInstitucion', ex.institution)
        .optLeaf('NombreInstitucionOtros', ex.institutionOther)
        .leaf('FechaEmisionEX', formatCrDateTime(ex.issuedAt))
        .leaf('TarifaExonerada', ex.rate)
        .leaf('MontoExoneracion', ex.amount)
        .close();
    }
    w.close();
  }
  if (!exportacion) {
    if (kind.impuestoAsumido !== false)
      w.leaf('ImpuestoAsumidoEmisorFabrica', t.impuestoAsumidoEmisorFabrica);
    w.leaf('ImpuestoNeto', t.impuestoNeto);
  }
  w.leaf('MontoTotalLinea', t.montoTotalLinea).close();
}

export function writeOtrosCargos(w: XmlWriter, charges: readonly ResolvedOtherCharge[]): void {
  for (const c of charges) {
    w.open('OtrosCargos').leaf('TipoDocumentoOC', c.code).optLeaf('TipoDocumentoOTROS', c.codeOther);
    if (c.thirdParty) {
      writeIdentificacion(w, 'IdentificacionTercero', c.thirdParty.idType, c.thirdParty.idNumber);
      w.optLeaf('NombreTercero', c.thirdParty.name);
    }
    w.leaf('Detalle', c.detail).optLeaf('PorcentajeOC', c.percent).leaf('MontoCargo', c.amount).close();
  }
}

export function writeResumen(
  w: XmlWriter,
  totals: DocumentTotals,
  mediosPago: readonly MedioPago[],
  kind?: ComprobanteKindInfo,
): void {
  // The FEE's ResumenFactura has no exonerado / no sujeto totals and no TotalIVADevuelto.
  const full = kind?.layout !== 'exportacion';
  const s = totals.summary;
  w.open('ResumenFactura')
    .open('CodigoTipoMoneda')
    .leaf('CodigoMoneda', s.currency)
    .leaf('TipoCambio', s.exchangeRate)
    .close()
    .optLeaf('TotalServGravados', s.totalServGravados)
    .optLeaf('TotalServExentos', s.totalServExentos)
    .optLeaf('TotalServExonerado', full ? s.totalServExonerado : undefined)
    .optLeaf('TotalServNoSujeto', full ? s.totalServNoSujeto : undefined)
    .optLeaf('TotalMercanciasGravadas', s.totalMercanciasGravadas)
    .optLeaf('TotalMercanciasExentas', s.totalMercanciasExentas)
    .optLeaf('TotalMercExonerada', full ? s.totalMercExonerada : undefined)
    .optLeaf('TotalMercNoSujeta', full ? s.totalMercNoSujeta : undefined)
    .optLeaf('TotalGravado', s.totalGravado)
    .optLeaf('TotalExento', s.totalExento)
    .optLeaf('TotalExonerado', full ? s.totalExonerado : undefined)
    .optLeaf('TotalNoSujeto', full ? s.totalNoSujeto : undefined)
    .leaf('TotalVenta', s.totalVenta)
    .optLeaf('TotalDescuentos', s.totalDescuentos)
    .leaf('TotalVentaNeta', s.totalVentaNeta);
  for (const d of s.totalDesgloseImpuesto) {
    w.open('TotalDesgloseImpuesto')
      .leaf('Codigo', d.code)
      .optLeaf('CodigoTarifaIVA', d.ivaRateCode)
      .leaf('TotalMontoImpuesto', d.amount)
      .close();
  }
  w.leaf('TotalImpuesto', s.totalImpuesto)
    .optLeaf('TotalImpAsumEmisorFabrica', s.totalImpAsumEmisorFabrica)
    .optLeaf('TotalIVADevuelto', full ? s.totalIVADevuelto : undefined)
    .optLeaf('TotalOtrosCargos', s.totalOtrosCargos);
  for (const m of mediosPago) {
    w.open('MedioPago')
      .leaf('TipoMedioPago', m.type)
      .optLeaf('MedioPagoOtros', m.other)
      .optLeaf('TotalMedioPago', m.total === undefined ? undefined : formatAmount(m.total))
      .close();
  }
  w.leaf('TotalComprobante', s.totalComprobante).close();
}

export function writeReferencias(w: XmlWriter, refs: readonly Referencia[]): void {
  for (const r of refs) {
    w.open('InformacionReferencia')
      .leaf('TipoDocIR', r.docType)
      .optLeaf('TipoDocRefOTRO', r.docTypeOther)
      .optLeaf('Numero', r.number)
      .leaf('FechaEmisionIR', formatCrDateTime(r.issuedAt))
      .optLeaf('Codigo', r.code)
      .optLeaf('CodigoReferenciaOTRO', r.codeOther)
      .optLeaf('Razon', r.reason)
      .close();
  }
}

export function writeOtros(w: XmlWriter, otros: readonly OtroTexto[]): void {
  if (otros.length === 0) return;
  w.open('Otros');
  for (const o of otros) w.leaf('OtroTexto', o.text, o.code === undefined ? undefined : { codigo: o.code });
  w.close();
}
