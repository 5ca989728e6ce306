// The pipeline's targets, each a ratio in one run, so a figure means the same on a fast or a
// slow machine and on a busy or a quiet one. Where each is computed:
//
//   end to end  service CPU per accepted invoice        ≤ 4 × the floor (bench/lib/floor.ts)
//   batch       10 × 1,000 recorded, s                  ≤ 10 × raw bulk insert of as many rows, s
//   intake      p99 of POST /api/v1/invoices, 32 conns  ≤ 50 ms
//   latency     p99 201 → invoice.accepted at 10/s      ≤ 1 s
//   reads       p99 of each read at 1,000,000 invoices  ≤ 10 ms
//   memory      worker VmHWM over the whole bench       ≤ 250 MB (bench/run.ts)
//   signing     documents built + signed per s, 1 core  ≥ 0.75 × raw RSA-2048 signs per s
//   end to end  Postgres commits per accepted invoice   ≤ 2 (xact_commit of the scratch database)
//   light       service CPU per invoice at 10/s         ≤ 2 × the same at full load (bench/run.ts)
//   light       service CPU at idle, 1 worker           ≤ 2 % of one core
//
// The service is the API, the workers, Postgres and Redis; the Hacienda simulator is Hacienda's
// work and is printed apart, like the bench's own load generator.
// Every row carries the figure, the limit beside it, ratio = figure ÷ limit, and the target as a
// ratio too: for the targets set in absolute terms (latencies, memory, idle CPU) the target ratio
// is the absolute target ÷ the limit measured in the run, so every row is judged the same way.

export type TargetId =
  | 'end_to_end.service_cpu'
  | 'end_to_end.pg_commits'
  | 'batch.recorded'
  | 'intake.p99'
  | 'latency.p99'
  | 'reads.get_invoice_by_id'
  | 'reads.list_invoices_by_status'
  | 'reads.client_name_search'
  | 'memory.worker_vm_hwm'
  | 'signing.docs_per_raw_rsa'
  | 'light.cpu_at_10_per_s'
  | 'light.idle_cpu';

/** Every target, in the order of the table; the stage that measures each is its prefix. */
export const TARGET_IDS: TargetId[] = [
  'end_to_end.service_cpu',
  'batch.recorded',
  'intake.p99',
  'latency.p99',
  'reads.get_invoice_by_id',
  'reads.list_invoices_by_status',
  'reads.client_name_search',
  'memory.worker_vm_hwm',
  'signing.docs_per_raw_rsa',
  'end_to_end.pg_commits',
  'light.cpu_at_10_per_s',
  'light.idle_cpu',
];

export interface TargetRow {
  id: TargetId;
  stage: string;
  figure: string;
  value: number | null;
  unit: string;
  limit: string;
  limit_value: number | null;
  limit_unit: string;
  /** Whether the limit was measured in this run (false: a definition, e.g. one commit per invoice). */
  limit_measured: boolean;
  /** value ÷ limit_value. */
  ratio: number | null;
  /** `>=` (higher is better) or `<=`. */
  direction: '>=' | '<=';
  target_ratio: number | null;
  /** The target as stated (e.g. "≥ 0.3 × limit", "≤ 100 ms"). */
  target: string;
  met: boolean;
  /** Why a row is not met regardless of its ratio (errors, invoices not accepted), or a caveat. */
  note?: string;
}

const r3 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : NaN);

interface Common {
  id: TargetId;
  figure: string;
  value: number | null;
  unit: string;
  limit: string;
  limitValue: number | null;
  limitUnit?: string;
  limitMeasured?: boolean;
  /** Conditions besides the ratio (e.g. every invoice accepted); a failed one fails the row. */
  require?: { ok: boolean; why: string }[];
  note?: string;
}

function finish(c: Common, direction: '>=' | '<=', targetRatio: number | null, target: string): TargetRow {
  const ratio =
    c.value !== null && c.limitValue !== null && c.limitValue > 0 ? r3(c.value / c.limitValue) : null;
  const failed = (c.require ?? []).filter((q) => !q.ok).map((q) => q.why);
  const inTarget =
    ratio !== null &&
    Number.isFinite(ratio) &&
    targetRatio !== null &&
    (direction === '>=' ? ratio >= targetRatio : ratio <= targetRatio);
  const notes = [...failed, ...(c.note ? [c.note] : [])];
  return {
    id: c.id,
    stage: c.id.split('.')[0]!.replace(/_/g, ' '),
    figure: c.figure,
    value: c.value,
    unit: c.unit,
    limit: c.limit,
    limit_value: c.limitValue,
    limit_unit: c.limitUnit ?? c.unit,
    limit_measured: c.limitMeasured ?? true,
    ratio: ratio !== null && Number.isFinite(ratio) ? ratio : null,
    direction,
    target_ratio: targetRatio,
    target,
    met: inTarget && failed.length === 0,
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

/** A target stated as a ratio to the limit (figure ÷ limit `direction` `ratio`). */
export function ratioTarget(c: Common, direction: '>=' | '<=', ratio: number): TargetRow {
  return finish(c, direction, ratio, `${direction === '>=' ? '≥' : '≤'} ${ratio} × limit`);
}

/** A target stated in absolute terms (figure `direction` `bound`), judged as bound ÷ limit. */
export function absoluteTarget(c: Common, direction: '>=' | '<=', bound: number): TargetRow {
  const targetRatio = c.limitValue !== null && c.limitValue > 0 ? r3(bound / c.limitValue) : null;
  return finish(
    c,
    direction,
    targetRatio !== null && Number.isFinite(targetRatio) ? targetRatio : null,
    `${direction === '>=' ? '≥' : '≤'} ${bound.toLocaleString('en')} ${c.unit}`,
  );
}

/** A figure shown beside the targets, with no target of its own. */
export interface InfoRow {
  stage: string;
  figure: string;
  value: number | string | null;
  unit: string;
  limit: string;
  limit_value: number | null;
  ratio: number | null;
}
