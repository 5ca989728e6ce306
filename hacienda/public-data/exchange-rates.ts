// The BCCR's reference rate of the US dollar, as Hacienda publishes it:
//   GET /indicadores/tc/dolar → { venta: { fecha, valor }, compra: { fecha, valor } } (today's;
//       fecha "2019-10-24T00:00:00-06:00" in the documentation, "2026-07-29" in later answers)
//   GET /indicadores/tc/dolar/historico?d=YYYY-MM-DD&h=YYYY-MM-DD → [{ fecha: "2019-12-01 00:00:00",
//       compra, venta }, …] (one row per calendar day, weekends included)
// Dates are Costa Rica calendar days (domain/cr-time.ts).
import type { GetJson } from './get-json.ts';
import { PublicDataNotFoundError, PublicDataUnavailableError } from './errors.ts';

export interface UsdRate {
  /** YYYY-MM-DD, Costa Rica. */
  date: string;
  /** Colones per dollar: compra (buy) and venta (sell), as decimal text. */
  buy: string;
  sell: string;
}

const dayOf = (v: unknown): string | null =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null;

function amount(v: unknown): string | null {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? String(n) : null;
}

const bad = (what: string) =>
  new PublicDataUnavailableError(`Hacienda answered ${what} that is not a rate`, 'bad_answer', 200);

/** Today's answer: the rate and the day it is for. */
export function readCurrentRate(body: unknown): UsdRate {
  const o = (body ?? {}) as { venta?: { fecha?: unknown; valor?: unknown }; compra?: { valor?: unknown } };
  const date = dayOf(o.venta?.fecha);
  const sell = amount(o.venta?.valor);
  const buy = amount(o.compra?.valor);
  if (!date || !sell || !buy) throw bad('a body');
  return { date, buy, sell };
}

/** The historico answer's row for one day, or null when the day is not in it. */
export function readHistoricRate(body: unknown, date: string): UsdRate | null {
  if (!Array.isArray(body)) throw bad('a history');
  for (const row of body as { fecha?: unknown; compra?: unknown; venta?: unknown }[]) {
    if (dayOf(row?.fecha) !== date) continue;
    const sell = amount(row.venta);
    const buy = amount(row.compra);
    if (!sell || !buy) throw bad('a row');
    return { date, buy, sell };
  }
  return null;
}

/**
 * The rate of a Costa Rica day. Today's is asked of /indicadores/tc/dolar (and of the history
 * when that answer is for another day); an earlier day's of the history.
 */
export async function fetchUsdRate(getJson: GetJson, date: string, today: string): Promise<UsdRate> {
  if (date === today) {
    const current = readCurrentRate(await getJson('/indicadores/tc/dolar', {}));
    if (current.date === date) return current;
  }
  const rate = readHistoricRate(await getJson('/indicadores/tc/dolar/historico', { d: date, h: date }), date);
  if (!rate) throw new PublicDataNotFoundError(`Hacienda has no dollar rate for ${date}`);
  return rate;
}
