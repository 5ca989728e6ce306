// Shared state of one simulator instance, handed to its route modules and processing pipeline.
import type { X509Certificate } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { XadesSigner } from '../hacienda/signer.ts';
import type { CallbackPost } from './callback-post.ts';
import type { SchemaChecker } from './checks/schema.ts';
import type { SimulatorKnobs } from './knobs.ts';
import type { Random } from './random.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { Counters, DocumentStore } from './store.ts';
import type { TokenIssuer } from './tokens.ts';

export interface SimulatorContext {
  /** Current knobs; replaced wholesale by POST /_simulator/config. */
  knobs: SimulatorKnobs;
  now: () => number;
  random: Random;
  tokens: TokenIssuer;
  /** Accepted username → password; null accepts any non-empty pair. */
  users: ReadonlyMap<string, string> | null;
  store: DocumentStore;
  counters: Counters;
  limiter: RateLimiter;
  schema: SchemaChecker | null;
  /** Hacienda's CABYS codes (SIMULATOR_CABYS_FILE), or null: then only the 13-digit format is checked. */
  cabys: ReadonlySet<string> | null;
  /** CAs whose certificates may sign documents: the sandbox CA plus SIMULATOR_TRUSTED_CA. */
  trustedCas: readonly X509Certificate[];
  /** Signs MensajeHacienda answers with the simulator's own ("Ministerio de Hacienda") certificate. */
  signer: Promise<XadesSigner>;
  /** Hacienda's callback POST; resolves to the receiver's status. */
  postCallback: CallbackPost;
  log: FastifyBaseLogger;
  /** Timers and hanging sockets to clean up on close. */
  timers: Set<NodeJS.Timeout>;
  hanging: Set<() => void>;
  closing: boolean;
}

/** setTimeout that close() can cancel. */
export function later(ctx: SimulatorContext, ms: number, fn: () => void): void {
  if (ctx.closing) return;
  const t = setTimeout(
    () => {
      ctx.timers.delete(t);
      fn();
    },
    Math.max(0, ms),
  );
  ctx.timers.add(t);
}
