// In-process control of a simulator, for tests (app.simulator) and the admin endpoints.
import type { SimulatorContext } from './context.ts';
import type { Row } from './checks/verdict.ts';
import { DEFAULT_KNOBS } from './knobs.ts';
import type { SimulatorKnobs } from './knobs.ts';
import type { Processor } from './processing.ts';
import { seededRandom } from './random.ts';
import { newCounters, stateAt } from './store.ts';
import type { Counters, SimState } from './store.ts';

export interface SimDocumentView {
  clave: string;
  /** Clave, or clave-consecutivoReceptor. */
  key: string;
  environment: 'sandbox' | 'production';
  state: SimState;
  receivedAt: string;
  /** Reasons once checked: free text (signature) and table rows. */
  freeText: string[];
  rows: Row[];
  /** Observations of an accepted document (-16, -37), once checked. */
  observations: Row[];
  /** The callback URL with every query value and any user:password replaced by "redacted": the
   * service puts its callback token there, and this view is served by /_simulator/documents. */
  callbackUrl: string | null;
  callback: 'none' | 'pending' | 'delivered' | 'failed';
}

export interface SimulatorControl {
  knobs(): SimulatorKnobs;
  /** Applies validated knob changes; returns the full set now in force. */
  configure(changes: Partial<SimulatorKnobs>): SimulatorKnobs;
  /** A snapshot of the counters. */
  counters(): Counters;
  documents(): SimDocumentView[];
  document(key: string, environment?: 'sandbox' | 'production'): SimDocumentView | undefined;
  /** Forgets documents, consecutivos, counters and rate windows. Knobs stay. */
  reset(): void;
  /** Invalidates every access and refresh token issued so far. */
  revokeTokens(): void;
  /** Resolves when no received document is waiting for its checks. */
  idle(): Promise<void>;
}

export function createControl(ctx: SimulatorContext, processor: Processor): SimulatorControl {
  const view = (storeKey: string): SimDocumentView | undefined => {
    const d = ctx.store.docs.get(storeKey);
    if (!d) return undefined;
    return {
      clave: d.clave,
      key: d.key,
      environment: d.sandbox ? 'sandbox' : 'production',
      state: stateAt(d, ctx.now()),
      receivedAt: new Date(d.receivedAt).toISOString(),
      freeText: d.verdict?.freeText ?? [],
      rows: d.verdict?.rows ?? [],
      observations: d.verdict?.observations ?? [],
      callbackUrl: d.callbackUrl === null ? null : redactUrl(d.callbackUrl),
      callback: d.callback,
    };
  };
  return {
    knobs: () => ({ ...ctx.knobs }),
    configure(changes) {
      const next = { ...DEFAULT_KNOBS, ...ctx.knobs, ...changes };
      if (changes.seed !== undefined) ctx.random = seededRandom(changes.seed);
      ctx.knobs = next;
      return { ...next };
    },
    counters: () => ({ ...ctx.counters }),
    documents: () => [...ctx.store.docs.keys()].map((k) => view(k)!),
    document: (key, environment = 'sandbox') =>
      view(`${environment === 'sandbox' ? 'rut-stag' : 'rut'}:${key}`),
    reset() {
      ctx.store.clear();
      ctx.counters = newCounters();
      ctx.limiter.clear();
    },
    revokeTokens: () => ctx.tokens.revokeAll(),
    idle: () => processor.idle(),
  };
}

/** The URL without secrets: credentials and query values become "redacted" (names are kept). */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'redacted';
  }
  if (url.username) url.username = 'redacted';
  if (url.password) url.password = 'redacted';
  const names = [...new Set(url.searchParams.keys())];
  url.search = '';
  for (const name of names) url.searchParams.append(name, 'redacted');
  url.hash = '';
  return url.toString();
}
