// A factura electrónica de compra (document_type 08) in a create-invoice body: the company buys
// from an informal or foreign supplier and issues the document itself; `supplier` carries the
// emisor data (Hacienda's Anexos y Estructuras v4.4: types 05 "Extranjero No Domiciliado" and 06 "No Contribuyente" exist for
// exactly this emisor). Lines, terms and the other fields are an invoice's (shape A, parsed by
// invoice-request.ts); what a purchase cannot have is refused here with its field.
import type { FieldError } from './errors.ts';
import { formatId } from './ids.ts';
import { parseInvoiceRequest, type InvoiceRequest } from './invoice-request.ts';
import { parseDocumentDate, REFERENCE_AFTER_DOCUMENT } from './invoice-request-fields.ts';
import { checkActivityCode, checkPhone, checkText, TEXT_FACETS } from './field-rules.ts';
import { resolveIdentification, type IdentificationType } from './identification.ts';
import { checkAddress } from './party-rules.ts';
import { typesIssuedOnRequest } from './document-types/index.ts';

/** The supplier as stored on the document (`invoices.supplier`) and written as its Emisor. */
export interface Supplier {
  name: string;
  idType: IdentificationType;
  idNumber: string;
  commercialName: string | null;
  /** CodigoActividadEmisor (optional in an FEC). */
  activityCode: string | null;
  location: {
    provincia: string;
    canton: string;
    distrito: string;
    barrio: string | null;
    otrasSenas: string;
  } | null;
  /** OtrasSenasExtranjero. */
  foreignAddress: string | null;
  phone: { countryCode: string; number: string } | null;
  email: string | null;
  /** What the FEC's InformacionReferencia says of the supplier's own paper (TipoDocIR 14, 16, 99). */
  document: { type: '14' | '16' | '99'; number: string | null; issuedAt: string | null };
}

const SUPPLIER_FIELDS = new Set([
  'name',
  'identification',
  'identification_type',
  'commercial_name',
  'activity_code',
  'location',
  'foreign_address',
  'phone',
  'phone_country',
  'email',
  'document',
]);

/** Fields of an invoice a purchase cannot carry. */
const NOT_IN_A_PURCHASE = [
  'client_id',
  'clientId',
  'paid_at_issue',
  'paidAtIssue',
  'email_recipients',
  'replaces',
] as const;

type Err = (path: string, code: string, message: string) => void;
type Fields = Record<string, unknown>;

/** The supplier's identification (01 to 06); a company does not buy from itself. */
function supplierIdentification(s: Fields, companyIdNumber: string, err: Err) {
  if (typeof s.identification !== 'string') {
    err('/supplier/identification', 'required', 'is required (the supplier identification number)');
    return { idType: null, idNumber: null };
  }
  const explicit = typeof s.identification_type === 'string' ? s.identification_type : null;
  if (s.identification_type !== undefined && explicit === null)
    err('/supplier/identification_type', 'invalid_type', 'must be a string (01 to 06)');
  const id = resolveIdentification(s.identification, explicit);
  if (!id.ok) {
    err('/supplier/identification', id.code, id.message);
    return { idType: null, idNumber: null };
  }
  if (id.number === companyIdNumber.toUpperCase())
    err('/supplier/identification', 'supplier_is_company', 'the supplier is the company itself');
  return { idType: id.type as IdentificationType | null, idNumber: id.number as string | null };
}

/**
 * Where the supplier is: one inscribed in Costa Rica (01-04) has a location there; a foreign one
 * (05) has none and may give its foreign address; a non-contributor (06) may give either.
 */
function supplierPlace(s: Fields, idType: IdentificationType | null, errors: FieldError[], err: Err) {
  let location: Supplier['location'] = null;
  const loc = s.location;
  if (loc !== undefined) {
    if (loc === null || typeof loc !== 'object' || Array.isArray(loc))
      err('/supplier/location', 'invalid_type', 'must be an object');
    else if (idType === '05')
      err('/supplier/location', 'not_applicable', 'a foreign supplier (05) has no Costa Rican location');
    else {
      const l = loc as Fields;
      const before = errors.length;
      checkAddress(errors, '/supplier/location', l);
      if (errors.length === before)
        location = {
          provincia: String(l.provincia),
          canton: String(l.canton),
          distrito: String(l.distrito),
          barrio: typeof l.barrio === 'string' ? l.barrio.trim() : null,
          otrasSenas: String(l.otras_senas).trim(),
        };
    }
  } else if (idType !== null && idType !== '05' && idType !== '06')
    err('/supplier/location', 'required', 'a supplier inscribed in Costa Rica (01-04) needs its location');
  const foreignAddress = checkText(errors, '/supplier/foreign_address', s.foreign_address, {
    element: 'Emisor/OtrasSenasExtranjero',
    min: 5,
    max: 300,
  });
  if (foreignAddress !== null && idType !== null && idType !== '05' && idType !== '06')
    err(
      '/supplier/foreign_address',
      'not_applicable',
      'only a foreign (05) or non-contributor (06) supplier',
    );
  return { location, foreignAddress };
}

/** What paper the supplier gave (InformacionReferencia): 16 for a foreign supplier, else 99, or 14. */
function supplierDocument(
  d: unknown,
  idType: IdentificationType | null,
  now: Date,
  errors: FieldError[],
  err: Err,
): Supplier['document'] {
  const byDefault: Supplier['document'] = {
    type: idType === '05' ? '16' : '99',
    number: null,
    issuedAt: null,
  };
  if (d === undefined) return byDefault;
  if (d === null || typeof d !== 'object' || Array.isArray(d)) {
    err('/supplier/document', 'invalid_type', 'must be an object');
    return byDefault;
  }
  const o = d as Fields;
  for (const k of Object.keys(o))
    if (!['type', 'number', 'issue_date'].includes(k))
      err(`/supplier/document/${k}`, 'unknown_field', 'is not a field of the supplier document');
  const type = o.type ?? byDefault.type;
  if (type !== '14' && type !== '16' && type !== '99')
    err(
      '/supplier/document/type',
      'invalid_value',
      'must be 14 (régimen especial), 16 (proveedor no domiciliado) or 99 (otro)',
    );
  const number = checkText(errors, '/supplier/document/number', o.number, {
    element: 'InformacionReferencia/Numero',
    min: 1,
    max: 50,
  });
  let issuedAt: string | null = null;
  if (o.issue_date !== undefined) {
    const when = parseDocumentDate(
      errors,
      '/supplier/document/issue_date',
      o.issue_date,
      now,
      REFERENCE_AFTER_DOCUMENT,
    );
    if (when) issuedAt = when.toISOString();
  }
  return type === '14' || type === '16' || type === '99' ? { type, number, issuedAt } : byDefault;
}

/** The purchase's own type (the registered type whose request form is `purchase`). */
const purchaseType = () => typesIssuedOnRequest().find((t) => t.request?.form === 'purchase');

/** The invoice fields a purchase cannot carry, and the supplier's presence and shape. */
function purchaseShape(rest: Fields, raw: unknown, err: Err): Fields | null {
  const type = purchaseType();
  const what = type ? `${type.request!.article} (document_type ${type.code})` : 'a purchase';
  for (const k of NOT_IN_A_PURCHASE) {
    if (rest[k] !== undefined) err(`/${k}`, 'not_applicable', `does not apply to ${what}`);
  }
  if (rest.condition === 'mercancia_no_nacionalizada' || rest.condition === '12')
    err(
      '/condition',
      'invalid_condition',
      `condition 12 does not apply to ${type?.request!.article ?? 'a purchase'}`,
    );
  if (raw === undefined) {
    err('/supplier', 'required', `${what} names its supplier, the emisor`);
    return null;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    err('/supplier', 'invalid_type', 'must be an object');
    return null;
  }
  const s = raw as Fields;
  for (const k of Object.keys(s))
    if (!SUPPLIER_FIELDS.has(k)) err(`/supplier/${k}`, 'unknown_field', 'is not a field of a supplier');
  return s;
}

/**
 * Splits a purchase body into its supplier (checked) and the rest, which invoice-request.ts
 * parses like an invoice's. `companyIdNumber`: a company does not buy from itself.
 */
export function parsePurchaseFields(
  body: Fields,
  companyIdNumber: string,
  now: Date = new Date(),
): { supplier: Supplier | null; rest: Fields; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const err: Err = (path, code, message) => errors.push({ path, code, message });
  const { document_type: _type, supplier: raw, ...rest } = body;
  const s = purchaseShape(rest, raw, err);
  if (!s) return { supplier: null, rest, errors };
  const name = checkText(errors, '/supplier/name', s.name, TEXT_FACETS.nombreEmisor, true);
  const { idType, idNumber } = supplierIdentification(s, companyIdNumber, err);
  const commercialName = checkText(
    errors,
    '/supplier/commercial_name',
    s.commercial_name,
    TEXT_FACETS.nombreComercial,
  );
  checkActivityCode(errors, '/supplier/activity_code', s.activity_code);
  const { location, foreignAddress } = supplierPlace(s, idType, errors, err);
  checkPhone(errors, '/supplier/phone', s.phone, '/supplier/phone_country', s.phone_country);
  const email = checkText(errors, '/supplier/email', s.email, TEXT_FACETS.correo);
  if (email !== null && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    err('/supplier/email', 'invalid_format', 'must be an email address');
  const document = supplierDocument(s.document, idType, now, errors, err);

  if (errors.length || name === null || idType === null || idNumber === null)
    return { supplier: null, rest, errors };
  return {
    supplier: {
      name,
      idType,
      idNumber,
      commercialName,
      activityCode: typeof s.activity_code === 'string' ? s.activity_code : null,
      location,
      foreignAddress,
      phone:
        typeof s.phone === 'string'
          ? { countryCode: typeof s.phone_country === 'string' ? s.phone_country : '506', number: s.phone }
          : null,
      email,
      document,
    },
    rest,
    errors,
  };
}

/** The stand-in client a purchase request is parsed with (it names no client). */
export const NO_CLIENT_ID = 1;

/**
 * A whole purchase body: the supplier, then the lines and terms like an invoice's (parsed with a
 * stand-in client, which preparing replaces by none). The single create, batch items and the
 * batch job use this one path.
 */
export function parsePurchaseRequest(
  body: Record<string, unknown>,
  companyIdNumber: string,
  now: Date = new Date(),
):
  { ok: true; value: { request: InvoiceRequest; supplier: Supplier } } | { ok: false; errors: FieldError[] } {
  const { supplier, rest, errors } = parsePurchaseFields(body, companyIdNumber, now);
  const parsed = parseInvoiceRequest({ ...rest, client_id: formatId('client', NO_CLIENT_ID) }, { now });
  if (!parsed.ok) errors.push(...parsed.errors);
  if (errors.length || !parsed.ok || !supplier) return { ok: false, errors };
  return { ok: true, value: { request: parsed.value, supplier } };
}
