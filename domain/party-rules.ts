// What a receptor (client), an emisor (company) and a catalogue item (service) must hold to be
// written into a comprobante: the XSD facets of each element they become and Hacienda's codes the
// service can check (territorial division, activity code, NumTelefono). The API's routes and the
// command-line tool call these same functions, before anything is stored.
import { unknownCabysError } from './cabys.ts';
import type { FieldError } from './errors.ts';
import { checkActivityCode, checkLocation, checkPhone, checkText, TEXT_FACETS } from './field-rules.ts';

export interface AddressFields {
  provincia?: unknown;
  canton?: unknown;
  distrito?: unknown;
  barrio?: unknown;
  otras_senas?: unknown;
}

/** One Ubicacion: codes in the territorial division, Barrio and OtrasSenas within their facets. */
export function checkAddress(errors: FieldError[], base: string, a: AddressFields): void {
  checkLocation(errors, base, {
    provincia: a.provincia as string,
    canton: a.canton as string,
    distrito: a.distrito as string,
  });
  checkText(errors, `${base}/barrio`, a.barrio, TEXT_FACETS.barrio);
  checkText(errors, `${base}/otras_senas`, a.otras_senas, TEXT_FACETS.otrasSenas, true);
}

export interface ClientFields {
  name?: unknown;
  commercial_name?: unknown;
  email?: unknown;
  phone?: unknown;
  phone_country_code?: unknown;
  activity_code?: unknown;
  addresses?: AddressFields[];
  /** A foreign receptor's address (OtrasSenasExtranjero), free text. */
  foreign_address?: unknown;
}

/** A client as the Receptor of a document (the identification is resolved apart, Nota 4). */
export function validateClientFields(c: ClientFields): FieldError[] {
  const errors: FieldError[] = [];
  checkText(errors, '/name', c.name, TEXT_FACETS.nombreReceptor, true);
  checkText(errors, '/commercial_name', c.commercial_name, TEXT_FACETS.nombreComercial);
  checkText(errors, '/email', c.email, TEXT_FACETS.correo);
  checkPhone(errors, '/phone', c.phone, '/phone_country_code', c.phone_country_code);
  checkActivityCode(errors, '/activity_code', c.activity_code);
  (c.addresses ?? []).forEach((a, i) => checkAddress(errors, `/addresses/${i}`, a));
  checkText(errors, '/foreign_address', c.foreign_address, TEXT_FACETS.otrasSenasExtranjero);
  return errors;
}

export interface EmisorFields {
  legalName?: unknown;
  commercialName?: unknown;
  activityCode?: unknown;
  provincia?: unknown;
  canton?: unknown;
  distrito?: unknown;
  barrio?: unknown;
  otrasSenas?: unknown;
  phone?: unknown;
  phoneCountry?: unknown;
  emails?: unknown[];
}

/** A company as the Emisor; location fields are checked once any of them is given. */
export function validateEmisorFields(c: EmisorFields): FieldError[] {
  const errors: FieldError[] = [];
  checkText(errors, '/legal_name', c.legalName, TEXT_FACETS.nombreEmisor, true);
  checkText(errors, '/commercial_name', c.commercialName, TEXT_FACETS.nombreComercial);
  checkActivityCode(errors, '/activity_code', c.activityCode);
  const anyLocation = [c.provincia, c.canton, c.distrito, c.otrasSenas].some((v) => v != null);
  if (anyLocation)
    checkAddress(errors, '', {
      provincia: c.provincia,
      canton: c.canton,
      distrito: c.distrito,
      barrio: c.barrio,
      otras_senas: c.otrasSenas,
    });
  else checkText(errors, '/barrio', c.barrio, TEXT_FACETS.barrio);
  checkPhone(errors, '/phone', c.phone, '/phone_country_code', c.phoneCountry);
  const emails = c.emails ?? [];
  if (emails.length > 4)
    errors.push({ path: '/emails', code: 'too_many', message: 'at most 4 addresses (CorreoElectronico)' });
  emails.forEach((e, i) => checkText(errors, `/emails/${i}`, e, TEXT_FACETS.correo, true));
  return errors;
}

export interface ServiceFields {
  cabys?: unknown;
  description?: unknown;
  commercial_code?: unknown;
}

/**
 * A catalogue item as a LineaDetalle: CodigoCABYS 13 digits and in the official CABYS catalogue,
 * Detalle, CodigoComercial.
 */
export function validateServiceFields(s: ServiceFields): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof s.cabys !== 'string' || !/^\d{13}$/.test(s.cabys))
    errors.push({ path: '/cabys', code: 'invalid_format', message: 'must be a 13-digit CABYS code' });
  else {
    const unknown = unknownCabysError(s.cabys, '/cabys');
    if (unknown) errors.push(unknown);
  }
  checkText(errors, '/description', s.description, TEXT_FACETS.detalle, true);
  checkText(errors, '/commercial_code', s.commercial_code, TEXT_FACETS.codigoComercial);
  return errors;
}
