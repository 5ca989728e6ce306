// What every stage gets from the orchestrator (bench/run.ts): parameters, the scratch database
// and its observer, the issuer, the running service (API, simulator, and the worker processes
// once started), the webhook receiver and the machine limits measured so far; and what a stage
// gives back: its figures, its target rows and other rows to print.
import type { Db } from '../../db/connection.ts';
import type { DbObserver } from './db-activity.ts';
import type { HttpClient } from './http-load.ts';
import type { Issuer } from './issuer.ts';
import type { RateFigure, RawPgFigure } from './limits.ts';
import type { BenchParams } from './params.ts';
import type { Receiver } from './receiver.ts';
import type { Service } from './service.ts';
import type { InfoRow, TargetRow } from './targets.ts';

export interface BenchContext {
  params: BenchParams;
  db: Db;
  databaseUrl: string;
  observer: DbObserver;
  api: HttpClient;
  issuer: Issuer;
  receiver: Receiver;
  service: Service;
  /** Pids per process group (api, worker, simulator, postgres), read now: for cpuSnapshot. */
  cpuGroups(): Promise<Record<string, number[]>>;
  /** Idle RSS (MB) of the API and of each worker process, read after start. */
  idleRss: Record<string, number>;
  limits: { rsa?: RateFigure; pg?: RawPgFigure };
  log(message: string): void;
}

export interface StageResult {
  figures: Record<string, unknown>;
  targets: TargetRow[];
  info: InfoRow[];
}
