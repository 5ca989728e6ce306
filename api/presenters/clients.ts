// A client row → the public `client` object (schema ClientObject, api/schemas/clients.ts): the
// answer of the client routes and the data of `client.created`.
import type { Static } from 'typebox';
import type { Client } from '../../db/models/index.ts';
import type { ListedClient } from '../../db/queries/clients.ts';
import { formatId } from '../../domain/ids.ts';
import { money2 } from '../../db/public-objects.ts';
import type { ClientObject } from '../schemas/clients.ts';

export type ClientJson = Static<typeof ClientObject>;

export function clientObject(c: Client | ListedClient): ClientJson {
  return {
    id: formatId('client', c.id),
    object: 'client' as const,
    uuid: c.uuid,
    cedula: c.idNumber,
    identification_type: c.idType,
    name: c.name,
    commercial_name: c.commercialName,
    email: c.email,
    phone: c.phone,
    phone_country_code: c.phoneCountry,
    activity_code: c.activityCode,
    addresses: (c.addresses ?? []).map((a) => ({
      provincia: a.provincia,
      canton: a.canton,
      distrito: a.distrito,
      barrio: a.barrio,
      otras_senas: a.otrasSenas,
    })),
    foreign_address: c.foreignAddress ?? null,
    balance: money2(c.balance),
    metadata: c.metadata,
    archived: Boolean(c.archivedAt),
    livemode: c.livemode,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
