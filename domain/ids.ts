// Public identifiers: a resource prefix plus the row id zero-padded to 12 digits
// (inv_000000000042). Clients and services also answer to their UUID.
export const ID_PREFIXES = {
  invoice: 'inv',
  client: 'cli',
  service: 'srv',
  payment: 'pay',
  event: 'evt',
  webhookEndpoint: 'we',
  webhookDelivery: 'whd',
  apiKey: 'key',
  company: 'cmp',
  batch: 'bat',
  invoiceEmail: 'eml',
  receivedDocument: 'rcv',
  user: 'usr',
  session: 'ses',
  invitation: 'ivt',
  auditEvent: 'aud',
  branch: 'brn',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function formatId(kind: IdKind, id: number): string {
  return `${ID_PREFIXES[kind]}_${String(id).padStart(12, '0')}`;
}

/** Returns the numeric row id of a public id of the given kind, or null if it is not one. */
export function parseId(kind: IdKind, value: string): number | null {
  const prefix = `${ID_PREFIXES[kind]}_`;
  if (!value.startsWith(prefix)) return null;
  const digits = value.slice(prefix.length);
  if (!/^\d{1,15}$/.test(digits)) return null;
  const n = Number(digits);
  return n > 0 && Number.isSafeInteger(n) ? n : null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** A reference to a client or service: the prefixed id or the UUID. */
export type ResourceRef = { id: number } | { uuid: string };

export function parseRef(kind: IdKind, value: string): ResourceRef | null {
  const id = parseId(kind, value);
  if (id !== null) return { id };
  if (isUuid(value)) return { uuid: value.toLowerCase() };
  return null;
}
