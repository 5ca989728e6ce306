// One member of a chunk must never hold back the others. A step writes its chunk in one
// transaction; when that write fails for a reason that is not the database's own (a numeric
// overflow, a check violation, a member whose data breaks the step's code), the chunk is halved
// and each half written on its own, down to single members: every member that can be written is,
// and each one that fails alone is returned with its error, for the step to record on it
// (recordProcessingError) instead of retrying the chunk. A failure of the database itself
// (unreachable, restarting, a deadlock: isTransientDatabaseError) belongs to no member: it is
// thrown, and the job is retried with its backoff. With one bad member among n, the halving costs
// about 2·log2(n) extra transactions, and only on the run that meets it.
import { isTransientDatabaseError } from '../../db/connection.ts';

export interface MemberFailure<T> {
  member: T;
  err: unknown;
}

export async function writeIsolating<T>(
  members: readonly T[],
  write: (part: readonly T[]) => Promise<void>,
): Promise<MemberFailure<T>[]> {
  if (!members.length) return [];
  try {
    await write(members);
    return [];
  } catch (err) {
    if (isTransientDatabaseError(err)) throw err;
    if (members.length === 1) return [{ member: members[0]!, err }];
    const half = Math.ceil(members.length / 2);
    const first = await writeIsolating(members.slice(0, half), write);
    return [...first, ...(await writeIsolating(members.slice(half), write))];
  }
}

/**
 * What a member's failure says on the invoice: a database error without its statement (knex puts
 * the SQL before " - "; the invoice's processing error is shown through the API), with its SQLSTATE.
 */
export function memberError(err: unknown): Error {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code) || typeof e.message !== 'string')
    return err instanceof Error ? err : new Error(String(err));
  const cut = e.message.lastIndexOf(' - ');
  return new Error(`${cut >= 0 ? e.message.slice(cut + 3) : e.message} (SQLSTATE ${e.code})`);
}

/** This run is the job's last: an error it throws is not tried again. */
export function lastAttempt(job: { attemptsMade: number; opts: { attempts?: number } }): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
