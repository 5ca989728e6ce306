// Builds the unsigned XML of a comprobante (FE, ND, NC, TE, FEC, FEE; the REP through receipt.ts)
// from a ComprobanteDocument and its computed totals, as its type's descriptor lays it out
// (domain/document-types/). Output: UTF-8 text with the XML declaration, the root in the type's default
// namespace with xmlns:ds declared for the signature, children in exact XSD order, no signature
// (the signer appends ds:Signature as the root's last child). Before writing, the cross-field
// rules the schema cannot express are checked (clave ↔ consecutivo ↔ emisor ↔ kind, sale
// condition, payment methods, references); field lengths and patterns are left to the XSD check.
import { CONDICIONES_VENTA_CREDITO, isCondicionVenta } from '../../domain/codes.ts';
import { ClaveError, assertClaveMatches } from '../../domain/clave.ts';
import { formatCrDateTime } from '../../domain/cr-time.ts';
import type { DocumentTypeDescriptor } from '../../domain/document-types/index.ts';
import { DomainValidationError, type FieldError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/totals.ts';
import {
  comprobanteKind,
  XMLDSIG_NAMESPACE,
  type ComprobanteKind,
  type ComprobanteKindInfo,
} from './document-types.ts';
import {
  writeEmisor,
  writeLinea,
  writeOtros,
  writeOtrosCargos,
  writeReceptor,
  writeReferencias,
  writeResumen,
} from './sections.ts';
import { buildReceiptXml } from './receipt.ts';
import type { ComprobanteDocument, PurchaseEmisor } from './types.ts';
import { XmlWriter } from './writer.ts';

const MAX_MEDIOS_PAGO = 4;
const MAX_REFERENCIAS = 10;

type Add = (path: string, code: string, message: string) => void;

/** The clave agrees with the consecutivo, the issuer and the type; the issue date is a date. */
function checkIdentity(kind: ComprobanteKindInfo, doc: ComprobanteDocument, add: Add): void {
  try {
    assertClaveMatches(doc.clave, {
      consecutivo: doc.consecutivo,
      // The issuer's: the emisor's, or the buyer's (the receptor) in a factura de compra.
      emisorId: kind.issuer === 'receptor' ? (doc.receptor?.idNumber ?? '') : doc.emisor.idNumber,
      docType: kind.docType,
    });
  } catch (err) {
    if (!(err instanceof ClaveError)) throw err;
    const path =
      err.field === 'emisorId' && err.code === 'mismatch'
        ? '/emisor/idNumber'
        : err.code === 'mismatch'
          ? '/consecutivo'
          : '/clave';
    add(path, err.code, err.message);
  }
  if (!(doc.issuedAt instanceof Date) || Number.isNaN(doc.issuedAt.getTime())) {
    add('/issuedAt', 'invalid_date', 'expected a valid date');
  }
}

/** The activity codes, the receptor and the emisor's address the type's schema asks for. */
function checkParties(kind: ComprobanteKindInfo, doc: ComprobanteDocument, add: Add): void {
  if (kind.activityCode === 'required' && !doc.activityCode) {
    add('/activityCode', 'required', `CodigoActividadEmisor is required in ${kind.root}`);
  }
  if (!kind.receptorActivityCode && doc.receptorActivityCode !== undefined) {
    add('/receptorActivityCode', 'not_allowed', `${kind.root} has no CodigoActividadReceptor`);
  }
  if (kind.receptor === 'required' && !doc.receptor)
    add('/receptor', 'required', `${kind.root} needs a receptor`);
  if (kind.emisorUbicacion !== 'optional') {
    if (!(doc.emisor as PurchaseEmisor).ubicacion)
      add('/emisor/ubicacion', 'required', `${kind.root} needs the emisor's Ubicacion`);
    if (doc.emisor.otrasSenasExtranjero !== undefined)
      add('/emisor/otrasSenasExtranjero', 'not_allowed', `${kind.root} has no Emisor/OtrasSenasExtranjero`);
  }
}

/** CondicionVenta (one the type accepts), its CondicionVentaOtros and PlazoCredito. */
function checkTerms(kind: ComprobanteKindInfo, doc: ComprobanteDocument, add: Add): void {
  if (!isCondicionVenta(doc.condicionVenta) || !kind.conditions.includes(doc.condicionVenta)) {
    add(
      '/condicionVenta',
      'not_allowed',
      `CondicionVenta "${doc.condicionVenta}" is not valid in ${kind.root}`,
    );
  } else {
    if (doc.condicionVenta === '99' && !doc.condicionVentaOtros) {
      add('/condicionVentaOtros', 'required', 'required when CondicionVenta is 99');
    }
    if (CONDICIONES_VENTA_CREDITO.includes(doc.condicionVenta) && doc.plazoCredito === undefined) {
      add('/plazoCredito', 'required', 'a credit sale needs PlazoCredito (days)');
    }
  }
  if (
    doc.plazoCredito !== undefined &&
    !(Number.isInteger(doc.plazoCredito) && doc.plazoCredito >= 0 && doc.plazoCredito <= 99_999)
  ) {
    add('/plazoCredito', 'out_of_range', 'expected whole days, 0..99999');
  }
}

/** At most four MedioPago, each amount given when there are several; errors are pushed. */
function checkPayments(doc: ComprobanteDocument, add: Add, errors: FieldError[]): void {
  if (doc.mediosPago.length > MAX_MEDIOS_PAGO) add('/mediosPago', 'too_many', 'at most 4 payment methods');
  doc.mediosPago.forEach((m, i) => {
    if (m.type === '99' && !m.other)
      add(`/mediosPago/${i}/other`, 'required', 'required for payment type 99');
    if (m.total === undefined) {
      if (doc.mediosPago.length > 1) {
        add(
          `/mediosPago/${i}/total`,
          'required',
          'each amount is required when there are several payment methods',
        );
      }
    } else {
      try {
        formatAmount(m.total, `/mediosPago/${i}/total`);
      } catch (err) {
        if (!(err instanceof DomainValidationError)) throw err;
        errors.push(...err.errors);
      }
    }
  });
}

/** The references the type needs, and totals computed from these very lines. */
function checkReferencesAndLines(kind: ComprobanteKindInfo, doc: ComprobanteDocument, add: Add): void {
  const refs = doc.referencias ?? [];
  if (refs.length < kind.minReferencias) {
    add(
      '/referencias',
      'required',
      `${kind.root} needs at least ${kind.minReferencias} InformacionReferencia`,
    );
  }
  if (refs.length > MAX_REFERENCIAS) add('/referencias', 'too_many', 'at most 10 references');

  const computed = doc.totals.lines;
  if (computed.length !== doc.lines.length) {
    add('/totals', 'mismatch', `totals have ${computed.length} lines, the document ${doc.lines.length}`);
  } else {
    doc.lines.forEach((line, i) => {
      const t = computed[i];
      const iva = line.ivaCollectedAtFactory === '02' ? null : line.ivaRateCode;
      if (t && (t.taxes[0]?.ivaRateCode ?? null) !== iva) {
        add(`/lines/${i}`, 'mismatch', 'the totals were computed from different lines');
      }
    });
  }
}

function check(kind: ComprobanteKindInfo, doc: ComprobanteDocument): FieldError[] {
  const errors: FieldError[] = [];
  const add: Add = (path, code, message) => {
    errors.push({ path, code, message });
  };
  checkIdentity(kind, doc, add);
  checkParties(kind, doc, add);
  checkTerms(kind, doc, add);
  checkPayments(doc, add, errors);
  checkReferencesAndLines(kind, doc, add);
  return errors;
}

/**
 * Writes the unsigned XML of a comprobante of the given type: its code (04 for a tiquete), its
 * descriptor, or the root element of one of Hacienda's types ('TiqueteElectronico'). Throws
 * DomainValidationError when the document is inconsistent (paths are JSON Pointers into the document).
 */
export function buildComprobanteXml(
  type: ComprobanteKind | string | DocumentTypeDescriptor,
  doc: ComprobanteDocument,
): string {
  const kind = comprobanteKind(type);
  // The recibo electrónico de pago has a reduced layout of its own.
  if (kind.writer === 'recibo') return buildReceiptXml(doc, kind);
  if (kind.writer !== 'comprobante') throw new Error(`${kind.root} is not written as a comprobante`);
  const errors = check(kind, doc);
  if (errors.length > 0) throw new DomainValidationError(errors);
  const w = new XmlWriter().declaration();
  w.open(kind.root, { xmlns: kind.namespace, 'xmlns:ds': XMLDSIG_NAMESPACE })
    .leaf('Clave', doc.clave)
    .leaf('ProveedorSistemas', doc.proveedorSistemas)
    .optLeaf('CodigoActividadEmisor', doc.activityCode);
  if (kind.receptorActivityCode) w.optLeaf('CodigoActividadReceptor', doc.receptorActivityCode);
  w.leaf('NumeroConsecutivo', doc.consecutivo).leaf('FechaEmision', formatCrDateTime(doc.issuedAt));
  writeEmisor(w, doc.emisor);
  if (doc.receptor) writeReceptor(w, doc.receptor, kind);
  w.leaf('CondicionVenta', doc.condicionVenta)
    .optLeaf('CondicionVentaOtros', doc.condicionVentaOtros)
    .optLeaf('PlazoCredito', doc.plazoCredito === undefined ? undefined : String(doc.plazoCredito));
  if (doc.lines.length > 0) {
    w.open('DetalleServicio');
    doc.lines.forEach((line, i) => {
      const t = doc.totals.lines[i];
      if (t) writeLinea(w, kind, line, t);
    });
    w.close();
  }
  writeOtrosCargos(w, doc.totals.otherCharges);
  writeResumen(w, doc.totals, doc.mediosPago, kind);
  writeReferencias(w, doc.referencias ?? []);
  writeOtros(w, doc.otros ?? []);
  return w.close().toString();
}
