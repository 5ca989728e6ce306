// Migration runner: migrations are TypeScript modules in db/migrations, named
// <timestamp>_<concern>.ts, loaded through an explicit source so the same code runs under
// tsx, vitest and the release phase. Forward-only once merged. The compiled build
// (`npm run build`) runs the same migrations as .js files under dist/db/migrations; they keep
// their .ts names in knex_migrations, so a database migrated by either is up to date for both.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import knexFactory from 'knex';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

const source: Knex.MigrationSource<string> = {
  async getMigrations() {
    return readdirSync(dir)
      .filter((f) => /^\d{14}_[a-z0-9_]+\.(ts|js)$/.test(f))
      .sort();
  },
  getMigrationName(name) {
    return name.replace(/\.js$/, '.ts');
  },
  async getMigration(name) {
    return (await import(pathToFileURL(join(dir, name)).href)) as Knex.Migration;
  },
};

export const migrationConfig: Knex.MigratorConfig = { migrationSource: source, tableName: 'knex_migrations' };

export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest(migrationConfig)) as [number, string[]];
  return applied;
}

/** Creates the database named in `url` when it does not exist yet (first run on a new machine). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) return false;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const db = knexFactory({ client: 'pg', connection: admin.toString(), pool: { min: 0, max: 1 } });
  try {
    const found = await db.raw('select 1 from pg_database where datname = ?', [name]);
    if (found.rows.length > 0) return false;
    await db.raw('create database ??', [name]);
    return true;
  } finally {
    await db.destroy();
  }
}
