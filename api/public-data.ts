// What routes need of Hacienda's public data: the problem each failure becomes, and a client body
// completed from the register (`lookup: true`).
export { publicDataOf } from '../operations/public-data.ts';
import type { Knex } from 'knex';
import type { Config } from '../config/index.ts';
import { lookupTaxpayer, publicDataOf } from '../operations/public-data.ts';
import {
  PublicDataNotFoundError,
  PublicDataUnavailableError,
  taxpayerQueryNumber,
} from '../hacienda/public-data/index.ts';
import { ApiError, validationError } from './errors.ts';

/** Seconds to wait before asking again: what Hacienda said, else a minute. */
const retryAfter = (err: PublicDataUnavailableError) =>
  String(Math.max(1, Math.ceil((err.retryAfterMs ?? 60_000) / 1000)));

/** 503 hacienda_unavailable (with Retry-After) for an unreachable Hacienda; other errors unchanged. */
export function unavailableProblem(err: unknown): unknown {
  if (!(err instanceof PublicDataUnavailableError)) return err;
  return new ApiError(
    'hacienda_unavailable',
    `No se pudo consultar el servicio público de Hacienda (${err.reason}); intente de nuevo más tarde ` +
      `(Hacienda's public service could not be reached (${err.reason}); try again later)`,
    { headers: { 'retry-after': retryAfter(err) }, fields: { reason: err.reason } },
  );
}

/** The problem of a taxpayer lookup's failure; `path` names the field the number came in. */
export function taxpayerProblem(err: unknown, number: string, path: string | null): unknown {
  if (!(err instanceof PublicDataNotFoundError)) return unavailableProblem(err);
  const message =
    `Hacienda no tiene a ${number} en su registro de contribuyentes ` +
    `(${number} is not in Hacienda's taxpayer register)`;
  if (path === null) return new ApiError('taxpayer_not_found', message);
  return new ApiError('validation_failed', message, {
    errors: [{ path, code: 'taxpayer_not_found', message }],
  });
}

/** 503 exchange_rate_unavailable: no rate in the cache and none from Hacienda. */
export function exchangeRateProblem(err: unknown, date: string, path: string): unknown {
  if (err instanceof PublicDataUnavailableError || err instanceof PublicDataNotFoundError) {
    const cause = err instanceof PublicDataUnavailableError ? err.reason : 'not_published';
    return new ApiError(
      'exchange_rate_unavailable',
      `No hay tipo de cambio del dólar para ${date}: Hacienda no respondió (${cause}) y no hay uno guardado; ` +
        `indique exchange_rate (no dollar exchange rate for ${date}: Hacienda did not answer (${cause}) and ` +
        'none is stored; give exchange_rate)',
      {
        headers: { 'retry-after': err instanceof PublicDataUnavailableError ? retryAfter(err) : '3600' },
        errors: [{ path, code: 'exchange_rate_unavailable', message: `no rate for ${date}` }],
      },
    );
  }
  return err;
}

/**
 * A client body with `lookup: true` completed from Hacienda's register: the identification type
 * from Hacienda (a different one given is refused), the name from Hacienda unless one is given (a
 * given name wins: it may be the spelling the client wants on its documents). Without lookup the
 * body is returned as it came.
 */
export async function clientBodyWithLookup<
  B extends { cedula: string; identification_type?: string; name?: string; lookup?: boolean },
>(db: Knex, config: Config, body: B): Promise<B> {
  if (body.lookup !== true) return body;
  const number = taxpayerQueryNumber(body.cedula);
  if (!number) {
    const message = 'debe tener de 9 a 12 dígitos para consultarla en Hacienda (must have 9 to 12 digits)';
    throw validationError([{ path: '/cedula', code: 'invalid_format', message }]);
  }
  let found;
  try {
    found = await lookupTaxpayer(db, publicDataOf(config), number);
  } catch (err) {
    throw taxpayerProblem(err, number, '/cedula');
  }
  const type = found.taxpayer.identificationType;
  if (body.identification_type !== undefined && body.identification_type !== type) {
    const message =
      `Hacienda registra ${number} con el tipo ${type}, no ${body.identification_type} ` +
      `(Hacienda registers ${number} as type ${type}, not ${body.identification_type})`;
    throw validationError([{ path: '/identification_type', code: 'identification_type_mismatch', message }]);
  }
  return { ...body, identification_type: type, name: body.name ?? found.taxpayer.name.slice(0, 100) };
}
