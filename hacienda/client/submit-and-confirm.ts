// Submit with the unknown-outcome rule applied (Hacienda's reception API): after a 5xx or a timeout on POST,
// first ask Hacienda whether it has the clave; only when it still does not know it after a short
// wait is the SAME document (same clave, same signed bytes) sent again. Resending the same clave
// is always safe — a repeat is answered "ya fue recibido anteriormente" — whereas a new clave
// would risk two accepted documents. Rejections and rate limits are left to the caller.
import { HaciendaUnknownOutcomeError } from './errors.ts';
import { systemClock } from './http.ts';
import type { Clock } from './http.ts';
import type { ReceptionClient, SubmitDocument } from './reception-client.ts';

export interface SubmitAndConfirmOptions {
  clock?: Clock;
  /** Waits between status checks after an unknown outcome; a 404 right after a POST is normal. */
  pollDelaysMs?: number[];
  /** How many times the same document may be sent again. Default 3. */
  maxResends?: number;
  /**
   * Start by asking Hacienda for the clave instead of POSTing: for a document whose previous send
   * ended with an unknown outcome (e.g. a retried job).
   */
  pollFirst?: boolean;
}

export interface Confirmed {
  outcome: 'received';
  /** How Hacienda's receipt was established. */
  via: 'post' | 'duplicate' | 'status';
  /** POSTs made by this call (0 when the status check found the clave first). */
  attempts: number;
}

const DEFAULT_POLL_DELAYS_MS = [250, 500, 1_000, 2_000];

/**
 * What GET /recepcion/{…} asks for a submitted document: its clave, or for a MensajeReceptor
 * (whose clave is the supplier's document's) the clave and the receptor's consecutivo.
 */
export function receptionKey(doc: Pick<SubmitDocument, 'clave' | 'consecutivoReceptor'>): string {
  return doc.consecutivoReceptor ? `${doc.clave}-${doc.consecutivoReceptor}` : doc.clave;
}

export async function submitAndConfirm(
  client: ReceptionClient,
  doc: SubmitDocument,
  options: SubmitAndConfirmOptions = {},
): Promise<Confirmed> {
  const clock = options.clock ?? systemClock;
  const delays = options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS;
  const maxResends = options.maxResends ?? 3;
  const known = async (waits: readonly number[]) => {
    for (const delay of waits) {
      if (delay > 0) await clock.sleep(delay);
      if ((await client.status(receptionKey(doc))).found) return true;
    }
    return false;
  };
  if (options.pollFirst && (await known([0, ...delays])))
    return { outcome: 'received', via: 'status', attempts: 0 };
  for (let attempts = 1; ; attempts++) {
    try {
      const res = await client.submit(doc);
      return { outcome: 'received', via: res.duplicate ? 'duplicate' : 'post', attempts };
    } catch (err) {
      if (!(err instanceof HaciendaUnknownOutcomeError) || attempts > maxResends) throw err;
    }
    // Outcome unknown: look before sending again (a 404 right after a POST is normal, so wait a bit).
    if (await known(delays)) return { outcome: 'received', via: 'status', attempts };
  }
}
