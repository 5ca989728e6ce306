// Hacienda's public, unauthenticated services (api.hacienda.go.cr): the taxpayer register and the
// dollar's reference rate. See README.md ("Public data").
import { createGetJson } from './get-json.ts';
import type { PublicDataClientOptions } from './get-json.ts';
import { fetchUsdRate } from './exchange-rates.ts';
import type { UsdRate } from './exchange-rates.ts';
import { fetchTaxpayer } from './taxpayers.ts';
import type { Taxpayer } from './taxpayers.ts';

export * from './errors.ts';
export type { PublicDataClientOptions } from './get-json.ts';
export type { UsdRate } from './exchange-rates.ts';
export type { Taxpayer, TaxpayerActivity } from './taxpayers.ts';
export { activityRegistered, taxpayerQueryNumber } from './taxpayers.ts';

export interface PublicDataClient {
  taxpayer(number: string): Promise<Taxpayer>;
  /** The rate of a Costa Rica day (YYYY-MM-DD), given today's Costa Rica date. */
  usdRate(date: string, today: string): Promise<UsdRate>;
}

export function createPublicDataClient(options: PublicDataClientOptions): PublicDataClient {
  const getJson = createGetJson(options);
  return {
    taxpayer: (number) => fetchTaxpayer(getJson, number),
    usdRate: (date, today) => fetchUsdRate(getJson, date, today),
  };
}
