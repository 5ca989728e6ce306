// Shared plumbing of the command-line tool: configuration, a database handle that is always
// closed, output as JSON (--json) or text, and errors that exit with a clear message. The tool
// finds its database the way `npm start` does (scripts/embedded-choice.ts): DATABASE_URL, else the
// local servers when they answer, else the embedded server a running `npm start` holds.
import { loadConfig, type Config } from '../config/index.ts';
import { createDb, type Db } from '../db/connection.ts';
import { describeConnectionFailure } from '../db/reachability.ts';
import { parseId, type IdKind } from '../domain/ids.ts';
import { embeddedReason, runningEmbeddedServer } from '../scripts/embedded-choice.ts';

export class CliError extends Error {}

export interface CliContext {
  config: Config;
  db: Db;
}

/** The configuration, pointed at the embedded server of a running `npm start` when that is the mode. */
export async function cliConfig(env: Record<string, string | undefined> = process.env): Promise<Config> {
  const config = loadConfig(env);
  if (env.DATABASE_URL) return config;
  const why = await embeddedReason(config, env);
  if (!why) return config;
  const server = runningEmbeddedServer(config.embeddedServer.dataDir);
  if (!server)
    throw new CliError(
      `modo integrado (${why}) y no hay un PostgreSQL integrado en marcha para ${config.embeddedServer.dataDir}: ` +
        'arranque primero el servicio (npm start) o indique DATABASE_URL y REDIS_URL de servidores reales. / ' +
        `Embedded mode (${why}), and no embedded PostgreSQL is running for ${config.embeddedServer.dataDir}: ` +
        'start the service first (npm start), or give DATABASE_URL and REDIS_URL of real servers.',
    );
  return loadConfig({ ...env, FACTURA_EMBEDDED: '1', DATABASE_URL: server.url });
}

export async function withContext<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = await cliConfig();
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
