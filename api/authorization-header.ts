// One Authorization header per request, or none. Two of them (or one carrying two credentials,
// as a proxy that joins repeated headers with commas would send) leave no telling which one the
// caller meant: Node keeps only the first `Authorization` of a request and drops the rest, a
// proxy in front may keep the last, so the service and the proxy could each authenticate a
// different key. Such a request is refused before anything reads either credential:
// 400 `ambiguous_authorization`, on every route (API keys, and the admin pages' Basic
// credentials alike). Neither a bearer token nor Basic credentials can contain a comma.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

/** How many credentials the request carries in Authorization headers. */
export function authorizationCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders ?? [];
  let headers = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') headers += 1;
  const parsed = request.headers.authorization as string | string[] | undefined;
  const values = parsed === undefined ? [] : [parsed].flat();
  const commas = values.some((v) => v.includes(','));
  return Math.max(headers, values.length, commas ? 2 : 0);
}

export function registerAuthorizationGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (authorizationCount(request) > 1)
      throw new ApiError(
        'ambiguous_authorization',
        'Send exactly one Authorization header with one credential; this request carries several',
      );
  });
}
