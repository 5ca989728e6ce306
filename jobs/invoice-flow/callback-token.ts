// The callback URL given to Hacienda with each submission. Its token is an HMAC under SECRETS_KEY,
// so only Hacienda (which received the URL) can prod a status job, and it can only prod its own.
// Since chunked flows the URL also names what to wake (the company, for its queue shard, and the
// status job of the chunk that carried the submission), covered by the same HMAC, so the callback
// wakes that job without a database read. A URL with the clave alone (given before) still works:
// the API then finds the invoice's chunk by its clave. When the reconciler re-creates a chunk under
// another name, a callback naming the old job only leaves a note nobody reads; the new chunk's
// status job asks Hacienda on its own schedule.
import { createHmac } from 'node:crypto';

/** What a callback wakes: the status job of the chunk that submitted the clave. */
export interface CallbackTarget {
  companyId: number;
  jobId: string;
}

export function callbackToken(secretsKey: Buffer, clave: string, target?: CallbackTarget): string {
  const signed = target
    ? `hacienda-callback:${clave}:${target.companyId}:${target.jobId}`
    : `hacienda-callback:${clave}`;
  return createHmac('sha256', secretsKey).update(signed).digest('base64url').slice(0, 32);
}

/** The callback URL's query: `t`, and `c` and `j` when the target is known. */
export function callbackQuery(secretsKey: Buffer, clave: string, target?: CallbackTarget): string {
  const t = callbackToken(secretsKey, clave, target);
  return target ? `t=${t}&c=${target.companyId}&j=${encodeURIComponent(target.jobId)}` : `t=${t}`;
}
