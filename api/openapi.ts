// The OpenAPI 3.1 document, generated from the routes' TypeBox schemas by @fastify/swagger,
// served at /openapi.json, and the interactive docs at /docs (@fastify/swagger-ui serves its own
// bundled files: no CDN, works offline). Routes without tags (Bull Board, the docs themselves)
// are left out. The transform adds what the route schemas do not say: the bearer security and
// required scope of /api routes (also as `x-scopes`), the rate-limit headers, and an example for every response
// (the schema's own examples when it has some, otherwise one built from the schema). Schemas
// with a type-name `title` are named components (api/openapi-components.ts). The tags and Swagger UI
// settings are api/openapi-ui.ts; the error reference every problem links to, api/error-pages.ts;
// the code catalogues the fields take (/docs/codes.json), api/code-catalogues.ts.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE } from '../domain/errors.ts';
import { registerCodeCatalogues } from './code-catalogues.ts';
import { registerErrorPages } from './error-pages.ts';
import { hoistErrorResponses, hoistNamedSchemas } from './openapi-components.ts';
import { withParamExamples } from './openapi-examples.ts';
import { OPENAPI_TAGS, SWAGGER_UI_OPTIONS } from './openapi-ui.ts';

type JsonSchema = Record<string, unknown>;

/** One error code per status, for the example of that status's problem+json answer. */
const EXAMPLE_CODE: Record<number, string> = {
  400: 'invalid_json',
  401: 'invalid_api_key',
  403: 'insufficient_scope',
  404: 'resource_not_found',
  409: 'invalid_state',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  500: 'internal_error',
  503: 'service_unavailable',
};

function problemExample(status: number): JsonSchema {
  const code = EXAMPLE_CODE[status] ?? 'invalid_request';
  const entry = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE];
  return {
    type: `/docs/errors#${code}`,
    title: entry.title,
    status,
    detail: status === 429 ? 'This API key may make 50 requests per second; retry after 1 s' : entry.title,
    code,
    ...(code === 'validation_failed'
      ? { errors: [{ path: '/lines/0/qty', code: 'invalid_type', message: 'must be number,string' }] }
      : {}),
    instance: '/api/v1/invoices',
    request_id: 'req_4mJ1o2Zb8tWcQv0N',
  };
}

const FORMAT_EXAMPLES: Record<string, unknown> = {
  'date-time': '2026-11-22T15:04:05.000Z',
  uuid: '2f1c3b9e-8d0a-4c6e-9a51-0b8e5f7d2c11',
  email: 'facturas@empresa.example',
  uri: 'https://example.com/webhooks',
};

/** A value that satisfies a (TypeBox-generated) JSON schema, preferring its own examples. */
export function exampleOf(schema: JsonSchema, depth = 0): unknown {
  if (depth > 12) return null;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants?.length) {
    const first = variants.find((v) => v.type !== 'null') ?? variants[0]!;
    return exampleOf(first, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as JsonSchema[]).map((s) => exampleOf(s, depth + 1)));
  }
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, exampleOf(v, depth + 1)]));
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items as JsonSchema, depth + 1)] : [];
    case 'string':
      return FORMAT_EXAMPLES[schema.format as string] ?? 'string';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    type: 'string',
    description: "The key's quota: requests per window of w seconds (IETF draft), e.g. `50;w=1`",
  },
  RateLimit: {
    type: 'string',
    description: 'Quota left in this window, e.g. `limit=50, remaining=12, reset=1`',
  },
};

/** The documented form of one response: media type, example and headers. */
function documentResponse(status: number, r: JsonSchema, authenticated: boolean): JsonSchema {
  const headers = authenticated
    ? status === 429
      ? {
          ...RATE_LIMIT_HEADERS,
          'Retry-After': { type: 'integer', description: 'Whole seconds, at least 1' },
        }
      : RATE_LIMIT_HEADERS
    : undefined;
  const withHeaders = (x: JsonSchema) => (headers ? { ...x, headers } : x);
  if (status >= 400) {
    const entry =
      ERROR_CATALOGUE[(EXAMPLE_CODE[status] ?? 'invalid_request') as keyof typeof ERROR_CATALOGUE];
    return withHeaders({
      description: entry.title,
      content: { 'application/problem+json': { schema: r, example: problemExample(status) } },
    });
  }
  if (r.type === 'null') return withHeaders({ ...r, description: r.description ?? 'No body' });
  if (r.type === 'string' && String(r.description).includes('application/xml')) {
    return withHeaders({
      description: r.description,
      content: { 'application/xml': { schema: { type: 'string' }, example: '<?xml version="1.0"?>…' } },
    });
  }
  if (r.type === 'string' && String(r.description).includes('application/pdf')) {
    return withHeaders({
      description: r.description,
      content: {
        'application/pdf': {
          schema: { type: 'string', contentMediaType: 'application/pdf' },
          example: '%PDF-1.3 …',
        },
      },
    });
  }
  if (r.type === 'string' && String(r.description).includes('application/zip')) {
    return withHeaders({
      description: r.description,
      content: {
        'application/zip': {
          schema: { type: 'string', contentMediaType: 'application/zip' },
          example: 'PK…',
        },
      },
    });
  }
  if (r.type === 'string' && String(r.description).includes('image/png')) {
    const image = (type: string) => ({ schema: { type: 'string', contentMediaType: type }, example: '…' });
    return withHeaders({
      description: r.description,
      content: { 'image/png': image('image/png'), 'image/jpeg': image('image/jpeg') },
    });
  }
  return withHeaders(Array.isArray(r.examples) ? r : { ...r, examples: [exampleOf(r)] });
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'factura-cr API',
        version: '1.0.0',
        description:
          'Electronic invoicing for Costa Rica (Hacienda v4.4). Authenticate with `Authorization: Bearer ik_live_…` ' +
          'or `ik_test_…` (sandbox). Errors are RFC 9457 problem+json with a stable `code`. Every authenticated ' +
          'response carries `RateLimit-Policy` and `RateLimit`; over the limit the answer is 429 with `Retry-After`. ' +
          'An empty body sent as `application/json` counts as no body: routes that take none accept it. ' +
          'Every error code is explained, Spanish first, at [/docs/errors](/docs/errors).',
      },
      tags: OPENAPI_TAGS,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: ik_live_… or ik_test_…' },
        },
      },
    },
    hideUntagged: true,
    // Titled schemas and the shared error answers become components (api/openapi-components.ts).
    transformObject: (document) =>
      'openapiObject' in document
        ? hoistErrorResponses(hoistNamedSchemas(document.openapiObject))
        : document.swaggerObject,
    transform: ({ schema, url, route }) => {
      if (!schema) return { schema, url };
      const s = { ...(schema as JsonSchema) };
      if (s.params) s.params = withParamExamples(url, s.params as JsonSchema);
      const authenticated = url.startsWith('/api/') && !route.config?.public;
      // Public routes under /api (signing up and in): no credentials at all.
      if (url.startsWith('/api/') && route.config?.public) s.security = [];
      if (authenticated) {
        s.security = [{ bearerAuth: [] }];
        const scope = route.config?.scope ?? route.config?.anyScope?.join(' or ');
        if (scope)
          s.description = [s.description, `Requires the \`${scope}\` scope.`].filter(Boolean).join(' ');
        // Machine-readable: the scopes any one of which grants the call ([] = any valid key).
        s['x-scopes'] = route.config?.scope ? [route.config.scope] : (route.config?.anyScope ?? []);
      }
      const responses = (s.response ?? {}) as Record<string, JsonSchema>;
      s.response = Object.fromEntries(
        Object.entries(responses).map(([status, r]) => [
          status,
          documentResponse(Number(status), r, authenticated),
        ]),
      );
      return { schema: s, url };
    },
  });

  await app.register(swaggerUi, SWAGGER_UI_OPTIONS);
  registerErrorPages(app);
  registerCodeCatalogues(app);

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
