// Request validation: one TypeBox schema per route part drives validation, types and OpenAPI.
// Bodies are validated strictly: no type coercion and unknown fields rejected (never stripped).
// Query strings and path params are strings on the wire, so they get coercion.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';

// ajv-formats ships CommonJS; its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

let shared: Ajv | null = null;

/** A validator with the body rules (no coercion, unknown fields rejected, defaults applied). */
export function compileBodyValidator(schema: object): ValidateFunction {
  shared ??= makeAjv(false);
  return shared.compile(schema);
}

export function registerValidation(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  const cache = new WeakMap<object, ValidateFunction>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const key = schema as object;
    let fn = httpPart === 'body' ? cache.get(key) : undefined;
    if (!fn) {
      fn = ajv.compile(schema as FastifySchema);
      if (httpPart === 'body') cache.set(key, fn);
    }
    return fn;
  });
}
