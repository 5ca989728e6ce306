// The JSON body parser: Fastify's own (prototype-poisoning checks included), plus a bound on how
// deeply a body may nest. No request of this API needs more than a handful of levels, and a body
// nested thousands of levels deep overflows the stack of any recursive step after parsing
// (structuredClone, a validator, a serializer) and would end as a 500. Such a body is a 422
// `nesting_too_deep` naming the JSON Pointer where the limit is crossed, on every route, before
// any handler sees it.
//
// An empty body (no bytes, or only whitespace) under `Content-Type: application/json` is no body
// at all: routes that need none (`POST /api/v1/invoices/{id}/send`, a key's roll, a redelivery)
// accept it, and routes that need one refuse it through their schema (422 validation_failed).
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

/** Objects and arrays inside one another, the body itself being level 1. */
export const MAX_JSON_DEPTH = 32;

const pointer = (path: string, key: string | number) =>
  `${path}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** The JSON Pointer of the first object or array nested deeper than `max`, or null. */
export function tooDeepAt(value: unknown, max = MAX_JSON_DEPTH): string | null {
  // Iterative: the value may be nested far deeper than the stack allows.
  const stack: [unknown, string, number][] = [[value, '', 1]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return path;
    const entries = Array.isArray(v) ? v.map((c, i) => [i, c] as const) : Object.entries(v);
    for (const [k, child] of entries)
      if (child !== null && typeof child === 'object') stack.push([child, pointer(path, k), depth + 1]);
  }
  return null;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    void parse(request, body as string, (err: Error | null, value?: unknown) => {
      if (err) return done(err, undefined);
      const at = tooDeepAt(value);
      if (at === null) return done(null, value);
      done(
        new ApiError(
          'nesting_too_deep',
          `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
          {
            errors: [
              { path: at, code: 'nesting_too_deep', message: `nested deeper than ${MAX_JSON_DEPTH} levels` },
            ],
          },
        ),
        undefined,
      );
    });
  });
}
