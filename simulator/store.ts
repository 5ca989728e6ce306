// In-memory state of the simulator: received documents by clave (by "clave-consecutivoReceptor"
// for a MensajeReceptor, as Hacienda keys them), the consecutivos already used per emisor, and the
// counters tests read. A Map is enough: the simulator is a test double; received XML is dropped
// once checked so a long load test keeps only small records.
import type { Verdict } from './checks/verdict.ts';

export type SimState = 'recibido' | 'procesando' | 'aceptado' | 'rechazado' | 'error';

export interface SimDocument {
  key: string;
  clave: string;
  /** Received on the sandbox base (/recepcion-sandbox/v1): answers carry the sandbox preamble. */
  sandbox: boolean;
  fecha: string;
  callbackUrl: string | null;
  emisor: { tipoIdentificacion: string; numeroIdentificacion: string };
  receivedAt: number;
  /** Not terminal before this instant, whatever the checks say (processing delay). */
  dueAt: number;
  verdict: Verdict | null;
  /** Base64 of the signed MensajeHacienda, built on first read. */
  response: Promise<string> | null;
  callback: 'none' | 'pending' | 'delivered' | 'failed';
}

export interface Counters {
  /** Documents stored (first POST of a clave, including POSTs that then failed by injection). */
  received: number;
  /** POSTs of a clave already stored (answered 400 "ya fue recibido anteriormente"). */
  duplicates: number;
  /** POSTs answered 202 whose document was then lost (lostDocumentRate): not stored, not counted as received. */
  lost: number;
  accepted: number;
  rejected: number;
  errors: number;
  badRequests: number;
  unauthorized: number;
  injectedServerErrors: number;
  injectedTimeouts: number;
  injectedRateLimits: number;
  rateLimited: number;
  passwordGrants: number;
  refreshGrants: number;
  invalidGrants: number;
  callbacksDelivered: number;
  callbacksFailed: number;
  /** Requests to the public services (public-data-routes.ts). */
  taxpayerLookups: number;
  exchangeRateLookups: number;
}

export const newCounters = (): Counters => ({
  received: 0,
  duplicates: 0,
  lost: 0,
  accepted: 0,
  rejected: 0,
  errors: 0,
  badRequests: 0,
  unauthorized: 0,
  injectedServerErrors: 0,
  injectedTimeouts: 0,
  injectedRateLimits: 0,
  rateLimited: 0,
  passwordGrants: 0,
  refreshGrants: 0,
  invalidGrants: 0,
  callbacksDelivered: 0,
  callbacksFailed: 0,
  taxpayerLookups: 0,
  exchangeRateLookups: 0,
});

export class DocumentStore {
  readonly docs = new Map<string, SimDocument>();
  private readonly consecutivos = new Map<string, string>();

  /**
   * Records that `key` uses this consecutivo of this emisor. Returns true when another document
   * already used it (Hacienda's -99), false when it is new.
   */
  claimConsecutivo(emisor: string, consecutivo: string, key: string): boolean {
    const id = `${emisor}|${consecutivo}`;
    const owner = this.consecutivos.get(id);
    if (owner === undefined) {
      this.consecutivos.set(id, key);
      return false;
    }
    return owner !== key;
  }

  clear(): void {
    this.docs.clear();
    this.consecutivos.clear();
  }
}

/** The state a GET sees at `now`: recibido for the first half of the delay, then procesando. */
export function stateAt(doc: SimDocument, now: number): SimState {
  if (doc.verdict && now >= doc.dueAt) return doc.verdict.state;
  return now - doc.receivedAt < (doc.dueAt - doc.receivedAt) / 2 ? 'recibido' : 'procesando';
}

export const isTerminal = (s: SimState) => s === 'aceptado' || s === 'rechazado' || s === 'error';
