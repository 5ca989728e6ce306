// Shared plumbing of the command-line tool: configuration, a database handle that is always
// closed, output as JSON (--json) or text, and errors that exit with a clear message.
import { loadConfig, type Config } from '../config/index.ts';
import { createDb, type Db } from '../db/connection.ts';
import { describeConnectionFailure } from '../db/reachability.ts';
import { parseId, type IdKind } from '../domain/ids.ts';

export class CliError extends Error {}

export interface CliContext {
  config: Config;
  db: Db;
}

export async function withContext<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = createDb({ url: config.databaseUrl, poolMax: 2, applicationName: 'factura-cli' });
  try {
    try {
      await db.raw('select 1');
    } catch (err) {
      throw new CliError(describeConnectionFailure('postgres', config.databaseUrl, err));
    }
    return await fn({ config, db });
  } finally {
    await db.destroy();
  }
}

export function output(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

/** Accepts a prefixed public id (cmp_000000000001) or the bare number. */
export function parseIdArg(kind: IdKind, raw: string, flag: string): number {
  if (/^\d+$/.test(raw)) return Number(raw);
  const id = parseId(kind, raw);
  if (id === null) throw new CliError(`${flag}: not a valid id: ${raw}`);
  return id;
}

export function parseMode(raw: string): boolean {
  if (raw === 'live') return true;
  if (raw === 'test' || raw === 'sandbox') return false;
  throw new CliError(`--mode must be test or live, got ${raw}`);
}
