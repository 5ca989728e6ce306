// A client body (the create's, or a PATCH merged over the stored client) checked and turned into
// the row's fields, in one place for both: the identification (Nota 4, domain/identification.ts),
// the Receptor's XSD facets and the territorial division (domain/party-rules.ts), then the
// columns. A duplicate identification in the company is the same 409 for both.
import type { Static } from 'typebox';
import type { Client } from '../db/models/index.ts';
import { DuplicateClientError, type ClientInput } from '../db/queries/clients.ts';
import { formatId } from '../domain/ids.ts';
import { resolveIdentification } from '../domain/identification.ts';
import { validateClientFields } from '../domain/party-rules.ts';
import { ApiError, validationError } from './errors.ts';
import type { CreateClientBody, UpdateClientBody } from './schemas/clients.ts';

export type ClientBody = Static<typeof CreateClientBody>;
type UpdateBody = Static<typeof UpdateClientBody>;

/** The body's client fields, checked like a create (422 with every field at fault). */
export function clientInput(body: ClientBody): ClientInput {
  const ident = resolveIdentification(body.cedula, body.identification_type);
  if (!ident.ok) throw validationError([{ path: '/cedula', code: ident.code, message: ident.message }]);
  const problems = validateClientFields(body);
  if (problems.length) throw validationError(problems);
  return {
    idType: ident.type,
    idNumber: ident.number,
    name: (body.name ?? '').trim(),
    commercialName: body.commercial_name?.trim() ?? null,
    email: body.email ?? null,
    phone: body.phone ?? null,
    phoneCountry: body.phone ? (body.phone_country_code ?? '506') : null,
    activityCode: body.activity_code ?? null,
    foreignAddress: body.foreign_address?.trim() ?? null,
    metadata: body.metadata ?? {},
    addresses: (body.addresses ?? []).map((a) => ({
      provincia: a.provincia,
      canton: a.canton,
      distrito: a.distrito,
      barrio: a.barrio?.trim() ?? null,
      otrasSenas: a.otras_senas.trim(),
    })),
  };
}

const given = <T>(patch: T | null | undefined, stored: T | null): T | undefined =>
  patch === null ? undefined : (patch ?? stored ?? undefined);

/**
 * A PATCH over the stored client as a whole create body. A new `cedula` without a type is read
 * again from its shape (as a create would); a new type alone applies to the stored number.
 */
export function mergedClientBody(c: Client, patch: UpdateBody): ClientBody {
  const newNumber = patch.cedula !== undefined;
  return {
    cedula: patch.cedula ?? c.idNumber,
    identification_type: patch.identification_type ?? (newNumber ? undefined : c.idType),
    ...(patch.lookup !== undefined ? { lookup: patch.lookup } : {}),
    name: patch.name ?? c.name,
    commercial_name: given(patch.commercial_name, c.commercialName),
    email: given(patch.email, c.email),
    phone: given(patch.phone, c.phone),
    phone_country_code: patch.phone_country_code ?? c.phoneCountry ?? undefined,
    activity_code: given(patch.activity_code, c.activityCode),
    foreign_address: given(patch.foreign_address, c.foreignAddress),
    metadata: patch.metadata ?? c.metadata,
    addresses:
      patch.addresses ??
      (c.addresses ?? []).map((a) => ({
        provincia: a.provincia,
        canton: a.canton,
        distrito: a.distrito,
        ...(a.barrio ? { barrio: a.barrio } : {}),
        otras_senas: a.otrasSenas,
      })),
  } as ClientBody;
}

/** A duplicate identification as the API's 409; anything else as it came. */
export function duplicateClientProblem(err: unknown, idNumber: string): unknown {
  if (!(err instanceof DuplicateClientError)) return err;
  return new ApiError('duplicate_client', `A client with identification ${idNumber} already exists`, {
    fields: { existing_client_id: formatId('client', err.existingId) },
  });
}
