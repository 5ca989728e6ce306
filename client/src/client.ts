// The client: openapi-fetch over the generated `paths` types, with what every call of this API
// needs: the base URL, the API key as a bearer token, Idempotency-Key and `Prefer: wait` as plain
// options, answers returned as their typed bodies and failures thrown as FacturaApiError. `raw`
// is the openapi-fetch client itself ({ data, error, response }, nothing thrown) for anything else.
import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { FacturaApiError } from './errors.ts';
import type { components, paths } from './schema.ts';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The paths that have an operation for this method. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends undefined ? never : P;
}[keyof paths];

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]> &
  Record<string | number, unknown>;

/** Options of one call beside what the operation takes (params, body). */
export interface CallOptions {
  /** Sent as Idempotency-Key: a retried create answers the first result instead of creating twice. */
  idempotencyKey?: string;
  /** Sent as `Prefer: wait=N` (seconds, at most 30): wait for Hacienda's answer before answering. */
  wait?: number;
  /** Extra request headers (Accept-Language: en for English rejection reasons, Request-Id, …). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** What one call takes: the operation's params and body, plus CallOptions. */
export type CallInit<P extends keyof paths, M extends Method> = Omit<
  NonNullable<MaybeOptionalInit<paths[P], M>>,
  'headers'
> &
  CallOptions;

type CallArgs<P extends keyof paths, M extends Method> =
  undefined extends MaybeOptionalInit<paths[P], M> ? [init?: CallInit<P, M>] : [init: CallInit<P, M>];

/** The success body of an operation. */
export type ResponseBody<P extends keyof paths, M extends Method> = NonNullable<
  FetchResponse<Operation<P, M>, object, 'application/json'>['data']
>;

type ListBody = { object: 'list'; data: { id: string }[]; has_more: boolean };

/** The list operations: GET paths whose answer is a page `{ object: 'list', data, has_more }`. */
export type ListPath = {
  [P in PathsWith<'get'>]: ResponseBody<P, 'get'> extends ListBody ? P : never;
}[PathsWith<'get'>];

/** The item type of a list operation. */
export type ListItem<P extends ListPath> = ResponseBody<P, 'get'> extends { data: (infer T)[] } ? T : never;

export type Invoice = components['schemas']['Invoice'];
export type InvoiceStatus = Invoice['status'];

export interface FacturaClientOptions {
  /** Where the service answers, e.g. `https://facturas.example.com` (paths start with /api/v1). */
  baseUrl: string;
  /** An API key: `ik_live_…` or `ik_test_…` (sandbox). */
  apiKey: string;
  /** Headers sent with every call (e.g. Accept-Language). */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
}

export interface WaitOptions {
  /** The statuses that end the wait (default: aceptada, rechazada). */
  until?: InvoiceStatus[];
  /** Give up after this long (default 60 s): throws an Error naming the last status. */
  timeoutMs?: number;
  /** Pause between reads (default 1 s). */
  intervalMs?: number;
}

export interface FacturaClient {
  /** The underlying openapi-fetch client: `{ data, error, response }`, never throws on an HTTP error. */
  readonly raw: Client<paths>;
  get<P extends PathsWith<'get'>>(path: P, ...init: CallArgs<P, 'get'>): Promise<ResponseBody<P, 'get'>>;
  post<P extends PathsWith<'post'>>(path: P, ...init: CallArgs<P, 'post'>): Promise<ResponseBody<P, 'post'>>;
  patch<P extends PathsWith<'patch'>>(
    path: P,
    ...init: CallArgs<P, 'patch'>
  ): Promise<ResponseBody<P, 'patch'>>;
  delete<P extends PathsWith<'delete'>>(
    path: P,
    ...init: CallArgs<P, 'delete'>
  ): Promise<ResponseBody<P, 'delete'>>;
  /**
   * Every item of a list, page after page (`starting_after` = the last id seen), fetched as the
   * loop asks for them. `limit` in the query is the page size.
   */
  paginate<P extends ListPath>(
    path: P,
    ...init: CallArgs<P, 'get'>
  ): AsyncGenerator<ListItem<P>, void, undefined>;
  /** Reads an invoice until its status is one of `until` (by default Hacienda's final answer). */
  waitForInvoice(id: string, options?: WaitOptions): Promise<Invoice>;
}

type RawCall = (
  path: string,
  init?: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export function createFacturaClient(options: FacturaClientOptions): FacturaClient {
  const raw = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: (request: Request) => options.fetch!(request) } : {}),
  });

  async function call(method: Method, path: string, init: CallOptions & Record<string, unknown> = {}) {
    const { idempotencyKey, wait, headers, ...rest } = init;
    const extra: Record<string, string> = { ...headers };
    if (idempotencyKey !== undefined) extra['idempotency-key'] = idempotencyKey;
    if (wait !== undefined) extra.prefer = `wait=${Math.max(0, Math.floor(wait))}`;
    const send = raw[method.toUpperCase() as Uppercase<Method>] as unknown as RawCall;
    const { data, error, response } = await send(path, { ...rest, headers: extra });
    if (!response.ok) throw new FacturaApiError(response.status, error, response.headers);
    return data;
  }

  const client: FacturaClient = {
    raw,
    get: (path, ...init) => call('get', path, init[0]) as never,
    post: (path, ...init) => call('post', path, init[0]) as never,
    patch: (path, ...init) => call('patch', path, init[0]) as never,
    delete: (path, ...init) => call('delete', path, init[0]) as never,
    async *paginate(path, ...init) {
      const first = (init[0] ?? {}) as CallOptions & { params?: { query?: Record<string, unknown> } };
      let after: string | undefined;
      for (;;) {
        const query = { ...first.params?.query, ...(after ? { starting_after: after } : {}) };
        const page = (await call('get', path, { ...first, params: { ...first.params, query } })) as ListBody;
        for (const item of page.data) yield item as never;
        const last = page.data.at(-1);
        if (!page.has_more || !last) return;
        after = last.id;
      }
    },
    async waitForInvoice(id, o = {}) {
      const until = o.until ?? ['aceptada', 'rechazada'];
      const deadline = Date.now() + (o.timeoutMs ?? 60_000);
      for (;;) {
        const invoice = await client.get('/api/v1/invoices/{id}', { params: { path: { id } } });
        if (until.includes(invoice.status)) return invoice;
        if (Date.now() >= deadline)
          throw new Error(`invoice ${id} is still ${invoice.status} (waited for ${until.join(' or ')})`);
        await new Promise((r) => setTimeout(r, o.intervalMs ?? 1000));
      }
    },
  };
  return client;
}
