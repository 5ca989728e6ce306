// What every stage gets from the orchestrator (bench/run.ts): parameters, the scratch database,
// the issuer, the running service (API, simulator, and the worker once started), the webhook
// receiver and the machine limits measured so far.
import type { Db } from '../../db/connection.ts';
import type { HttpClient } from './http-load.ts';
import type { Issuer } from './issuer.ts';
import type { RateFigure, RawPgFigure } from './limits.ts';
import type { BenchParams } from './params.ts';
import type { Child } from './processes.ts';
import type { Receiver } from './receiver.ts';

export interface BenchContext {
  params: BenchParams;
  db: Db;
  databaseUrl: string;
  apiUrl: string;
  simulatorUrl: string;
  api: HttpClient;
  issuer: Issuer;
  receiver: Receiver;
  children: { api: Child; simulator: Child; worker: Child | null };
  startWorker(): Promise<Child>;
  stopWorker(): Promise<void>;
  /** Jobs waiting, active or delayed per queue of the invoice flow and webhooks. */
  queuedJobs(): Promise<Record<string, number>>;
  limits: { rsa?: RateFigure; pg?: RawPgFigure };
  log(message: string): void;
}

/** One line of the final table. */
export interface TableRow {
  stage: string;
  figure: string;
  value: number | string | null;
  unit: string;
  target: string;
  met: boolean | null;
  limit: string;
  limitValue: number | null;
  /** figure ÷ limit (for times: limit ÷ figure is not used; the ratio is always value / limitValue). */
  ratio: number | null;
}
