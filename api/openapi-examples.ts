// Examples for the path parameters of the OpenAPI document: an id of the resource the path
// names (`/api/v1/invoices/{id}` → inv_000000000042), a CABYS code, a branch code, a cédula.
type JsonSchema = Record<string, unknown>;

/** The id prefix of the resource before `/:id` in a route path. */
const ID_EXAMPLES: Record<string, string> = {
  invoices: 'inv_000000000042',
  clients: 'cli_000000000012',
  services: 'srv_000000000007',
  keys: 'key_000000000003',
  webhook_endpoints: 'we_000000000002',
  events: 'evt_000000000128',
  batches: 'bat_000000000005',
  received_documents: 'rcv_000000000003',
  sessions: 'ses_000000000009',
  invitations: 'ivt_000000000004',
  members: 'usr_000000000006',
};

const OTHER_EXAMPLES: Record<string, string> = {
  cabys: '8314100000200',
  branches: '002',
  taxpayers: '3101123456',
};

function exampleFor(url: string, name: string): string | undefined {
  const parts = url.split('/');
  const at = parts.indexOf(`:${name}`);
  const resource = at > 0 ? parts[at - 1]! : '';
  return name === 'id' ? ID_EXAMPLES[resource] : OTHER_EXAMPLES[resource];
}

/** The route's params schema with an example for each path parameter that has none. */
export function withParamExamples(url: string, params: JsonSchema | undefined): JsonSchema | undefined {
  const props = params?.properties as Record<string, JsonSchema> | undefined;
  if (!params || !props) return params;
  const properties = Object.fromEntries(
    Object.entries(props).map(([name, p]) => {
      const example = Array.isArray(p.examples) ? undefined : exampleFor(url, name);
      return [name, example === undefined ? p : { ...p, examples: [example] }];
    }),
  );
  return { ...params, properties };
}
