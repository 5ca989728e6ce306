// What an audit event says was done, read from the route a write went through: the action
// (`<resource>.<verb>`, e.g. `invoices.create`, `clients.update`, `webhook_endpoints.delete`,
// `invoices.send`) and the kind of resource a public id names (`inv_…` → `invoice`).
//
// Derivation from the route pattern under /api/v1 (parameters left out):
//   - ending with a parameter (`/webhook_endpoints/:id`): `<resources>.update`, DELETE `.delete`;
//   - a word after a parameter (`/invoices/:id/send`): that word is the verb: `invoices.send`;
//   - no parameter (`/invoices`, `/company/certificate`): POST `.create`, PUT/PATCH `.update`,
//     DELETE `.delete`.
// Where that reads badly, AUDIT_ACTION_EXCEPTIONS names it, and a route may name its own with
// `config.audit` (or `config.audit: false`: not recorded, e.g. a write-nothing preview).
import { ID_PREFIXES, type IdKind } from './ids.ts';

export const UNSAFE_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

const API_PREFIX = '/api/v1/';

/** Routes whose derived action reads badly; `null`: never recorded. */
export const AUDIT_ACTION_EXCEPTIONS: Record<string, string | null> = {
  'POST /api/v1/invoices/batch': 'batches.create',
  'POST /api/v1/invoices/preview': null,
  'POST /api/v1/invoices/:id/payments': 'payments.create',
  'POST /api/v1/invoices/:id/credit_notes': 'credit_notes.create',
  'POST /api/v1/invoices/:id/debit_notes': 'debit_notes.create',
  'DELETE /api/v1/keys/:id': 'keys.revoke',
  'POST /api/v1/company/go_live': 'company.go_live',
  'POST /api/v1/company/hacienda_credentials/test': 'company.hacienda_credentials.test',
  'POST /api/v1/invitations/accept': 'invitations.accept',
};

function verbOf(method: string): string {
  if (method === 'DELETE') return 'delete';
  return method === 'POST' ? 'create' : 'update';
}

/**
 * The action of a write through `method` + `pattern` (null: not a write under /api/v1, or one not
 * recorded); `configured` is the route's own `config.audit`, which wins.
 */
export function auditAction(method: string, pattern: string, configured?: string | false): string | null {
  if (!UNSAFE_METHODS.includes(method) || !pattern.startsWith(API_PREFIX)) return null;
  if (configured !== undefined) return configured || null;
  const exception = AUDIT_ACTION_EXCEPTIONS[`${method} ${pattern}`];
  if (exception !== undefined) return exception;
  const segments = pattern.slice(API_PREFIX.length).split('/').filter(Boolean);
  const words = segments.filter((s) => !s.startsWith(':'));
  if (words.length === 0) return null;
  const last = segments[segments.length - 1]!;
  const hasParam = segments.length > words.length;
  if (last.startsWith(':')) return `${words.join('.')}.${method === 'DELETE' ? 'delete' : 'update'}`;
  if (hasParam && words.length > 1) return words.join('.');
  return `${words.join('.')}.${verbOf(method)}`;
}

const KIND_BY_PREFIX = new Map<string, IdKind>(
  Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind as IdKind]),
);

/** `webhookEndpoint` → `webhook_endpoint`. */
const snake = (kind: string) => kind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The resource type a public id names (`inv_000000000042` → `invoice`), or null if it is not one. */
export function targetTypeOf(publicId: string): string | null {
  const m = /^([a-z]+)_\d{12}$/.exec(publicId);
  const kind = m ? KIND_BY_PREFIX.get(m[1]!) : undefined;
  return kind ? snake(kind) : null;
}
