// Named schemas in the OpenAPI document. A TypeBox schema given a `title` that is a type name
// (`Invoice`, `Problem`, `CreateInvoiceRequest`) is moved out of the operations into
// `components.schemas` under that name and referenced from every place it appeared, so generated
// clients get one named type per object instead of an anonymous copy per operation. Two different
// schemas with one title are a mistake in the route schemas: building the document throws.
// Likewise the error answers of /api operations (problem+json, the same for every operation)
// become `components.responses` (Unauthorized, TooManyRequests, …), referenced by status.
type Json = Record<string, unknown>;

const TYPE_NAME = /^[A-Z][A-Za-z0-9]*$/;

/** Keys whose values are examples (data, not schemas): never searched for schemas. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);

function isNamedSchema(v: Json): v is Json & { title: string } {
  return (
    typeof v.title === 'string' &&
    TYPE_NAME.test(v.title) &&
    ('type' in v || 'anyOf' in v || 'oneOf' in v || 'allOf' in v || 'properties' in v)
  );
}

export function hoistNamedSchemas<T extends object>(doc: T): T {
  const given = doc as Json;
  const components = ((given.components as Json | undefined) ?? {}) as Json;
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Record<string, Json>;
  const seen = new Map<string, string>();

  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) out[k] = DATA_KEYS.has(k) ? v : visit(v);
    if (!isNamedSchema(out)) return out;
    const name = out.title;
    const text = JSON.stringify(out);
    const before = seen.get(name);
    if (before === undefined) {
      seen.set(name, text);
      schemas[name] = out;
    } else if (before !== text) {
      throw new Error(`OpenAPI: two different schemas are titled ${name}; give each its own title`);
    }
    return { $ref: `#/components/schemas/${name}` };
  };

  const paths = visit(given.paths);
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { ...doc, paths, components: { ...components, schemas: sorted } };
}

/** Names of the shared error responses, by status. */
const ERROR_RESPONSE_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'UnprocessableContent',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
};

export function hoistErrorResponses<T extends object>(doc: T): T {
  const given = doc as Json;
  const components = ((given.components as Json | undefined) ?? {}) as Json;
  const responses = { ...((components.responses as Json | undefined) ?? {}) } as Record<string, Json>;
  const texts = new Map<string, string>();
  const paths: Json = {};
  for (const [path, item] of Object.entries((given.paths ?? {}) as Record<string, Json>)) {
    if (!path.startsWith('/api/')) {
      paths[path] = item;
      continue;
    }
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, op]) => {
        const o = op as Json;
        if (!o || typeof o !== 'object' || !o.responses) return [method, op];
        const answers = Object.entries(o.responses as Record<string, Json>).map(([status, r]) => {
          // Public routes (signing in, up) answer without the rate-limit headers: their own components.
          const base = ERROR_RESPONSE_NAMES[status] ?? `Error${status}`;
          const name = r.headers ? base : `Public${base}`;
          if (Number(status) < 400 || !(r.content as Json | undefined)?.['application/problem+json'])
            return [status, r];
          const text = JSON.stringify(r);
          const before = texts.get(name);
          if (before === undefined) {
            texts.set(name, text);
            responses[name] = r;
          } else if (before !== text) {
            throw new Error(`OpenAPI: the ${status} answers of /api operations differ (${method} ${path})`);
          }
          return [status, { $ref: `#/components/responses/${name}` }];
        });
        return [method, { ...o, responses: Object.fromEntries(answers) }];
      }),
    );
  }
  return { ...doc, paths, components: { ...components, responses } };
}
