// A catalogue service row → the public `service` object (schema ServiceObject,
// api/schemas/services.ts), for the API and the command-line tool alike.
import { Decimal } from 'decimal.js';
import type { Static } from 'typebox';
import type { Service } from '../../db/models/index.ts';
import { isUnidadMedida, unitKind } from '../../domain/codes.ts';
import { formatId } from '../../domain/ids.ts';
import type { ServiceObject } from '../schemas/services.ts';

export type ServiceJson = Static<typeof ServiceObject>;

/**
 * A service's default price as given, normalised: its decimals up to the 5 of PrecioUnitario,
 * at least 2 (`50000.00`, `1234.56789`, `0.125`→`0.125`, `7.50000`→`7.50`).
 */
function servicePrice(price: string): string {
  const d = new Decimal(price);
  return d.decimalPlaces() <= 2 ? d.toFixed(2) : d.toFixed();
}

export function serviceObject(s: Service): ServiceJson {
  return {
    id: formatId('service', s.id),
    object: 'service' as const,
    uuid: s.uuid,
    cabys: s.cabys,
    description: s.description,
    unit: s.unit,
    kind: isUnidadMedida(s.unit) ? unitKind(s.unit) : 'goods',
    tax_code: s.taxCode,
    iva_rate_code: s.ivaRateCode,
    taxes: (s.otherTaxes ?? []).map((t) =>
      Object.fromEntries(
        Object.entries(t).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
      ),
    ),
    price: servicePrice(s.price),
    commercial_code: s.commercialCode,
    archived: Boolean(s.archivedAt),
    livemode: s.livemode,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
