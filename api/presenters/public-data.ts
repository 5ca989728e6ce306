// Hacienda's public data → the API's `taxpayer` and `exchange_rate` objects.
import type { Static } from 'typebox';
import { Decimal } from 'decimal.js';
import type { ExchangeRateRow } from '../../db/queries/public-data.ts';
import type { Taxpayer } from '../../hacienda/public-data/index.ts';
import type { ExchangeRateObject, TaxpayerObject } from '../schemas/public-data.ts';

export function taxpayerObject(t: Taxpayer, fetchedAt: Date): Static<typeof TaxpayerObject> {
  return {
    object: 'taxpayer',
    cedula: t.identification,
    name: t.name,
    identification_type: t.identificationType,
    regime: { code: t.regime.code, description: t.regime.description },
    situation: {
      moroso: t.situation.moroso,
      omiso: t.situation.omiso,
      estado: t.situation.estado,
      administracion_tributaria: t.situation.administracionTributaria,
      message: t.situation.mensaje,
    },
    activities: t.activities.map((a) => ({ ...a })),
    fetched_at: fetchedAt.toISOString(),
  };
}

export function exchangeRateObject(r: ExchangeRateRow): Static<typeof ExchangeRateObject> {
  return {
    object: 'exchange_rate',
    currency: 'USD',
    date: r.rateDate,
    buy: new Decimal(r.buy).toString(),
    sell: new Decimal(r.sell).toString(),
    source: r.source,
    fetched_at: new Date(r.fetchedAt).toISOString(),
  };
}
