// Request validation: one TypeBox schema per route part drives validation, types and OpenAPI.
// Bodies are validated strictly: no type coercion and unknown fields rejected (never stripped).
// Query strings and path params are strings on the wire, so they get coercion.
// Every string of a body or query string (object keys included) must be text that XML 1.0 and
// Postgres can carry: no NUL or other C0 control characters (tab, LF and CR excepted), no
// unpaired surrogates, no U+FFFE/U+FFFF. Names and descriptions end up in the signed XML, and
// Postgres refuses NUL in text and jsonb, so such input is a 422 here, never a 500 or an
// invoice that cannot be signed later.
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

/** A character no text field may hold (see the header). */
const UNSAFE_CHAR =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The JSON Pointer of the first string (value or key) holding an unsafe character, if any. */
export function findUnsafeText(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return UNSAFE_CHAR.test(value) ? path : null;
  if (value === null || typeof value !== 'object') return null;
  // Iterative: a hostile body may nest thousands of levels deep.
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length) {
    const [v, p] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSAFE_CHAR.test(v)) return p;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const at = `${p}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (UNSAFE_CHAR.test(k)) return at;
        stack.push([child, at]);
      }
    }
  }
  return null;
}

/** Wraps a validator so that, once the schema passes, unsafe characters fail it too. */
function guardText(validate: ValidateFunction): ValidateFunction {
  const guarded = ((data: unknown) => {
    if (!validate(data)) {
      guarded.errors = validate.errors;
      return false;
    }
    const at = findUnsafeText(data);
    guarded.errors =
      at === null
        ? null
        : [
            {
              keyword: 'unsafeText',
              instancePath: at,
              schemaPath: '#',
              params: {},
              message: 'contains a control character, NUL or unpaired surrogate',
            },
          ];
    return at === null;
  }) as ValidateFunction;
  return guarded;
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
      if (httpPart === 'body' || httpPart === 'querystring') fn = guardText(fn);
      if (httpPart === 'body') cache.set(key, fn);
    }
    return fn;
  });
}
