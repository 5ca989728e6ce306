// Builds the migrated template database once per test run; each test file clones it
// (CREATE DATABASE … TEMPLATE), which takes milliseconds and keeps files independent.
// The template's name carries this run's pid, so two runs on one machine never collide; so do the
// files' databases, which the run drops with the template at its end (a few at a time).
// Leftovers of earlier runs are removed: their databases, and process logs in test/artifacts
// older than a day (a run never lasts that long, so a concurrent run's logs are kept).
// The application (web/) is built once when its bundle is missing or stale, so the API serves it
// to browser tests.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import knexFactory from 'knex';
import type { TestProject } from 'vitest/node';
import { projectRoot } from '../config/index.ts';
import { createDb } from '../db/connection.ts';
import { migrateLatest } from '../db/migrator.ts';
import { adminUrl, runDatabasePrefix, testDatabaseUrl } from './helpers/db-urls.ts';
import { ensureWebBuilt } from '../scripts/web-build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDb: string;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function pruneOldArtifacts(): void {
  const dir = join(projectRoot, 'test/artifacts');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // no artifacts yet
  }
  const dayAgo = Date.now() - 86_400_000;
  for (const name of names) {
    const path = join(dir, name);
    if (name.endsWith('.log') && statSync(path).mtimeMs < dayAgo) rmSync(path, { force: true });
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  pruneOldArtifacts();
  await ensureWebBuilt();
  const template = `factura_tpl_${process.pid}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    // Leftovers of earlier, interrupted runs: databases whose creating process is gone (the
    // name carries its pid). Databases of runs still going are left alone.
    const stale = await admin.raw(
      `select datname from pg_database where datname like 'factura\\_t\\_%' or datname like 'factura\\_tpl\\_%'`,
    );
    for (const row of stale.rows as { datname: string }[]) {
      const pid = Number(/^factura_(?:t|tpl)_(\d+)/.exec(row.datname)?.[1]);
      if (pid && pid !== process.pid && isAlive(pid)) continue;
      await admin.raw('drop database if exists ?? with (force)', [row.datname]);
    }
    await admin.raw('create database ??', [template]);
  } finally {
    await admin.destroy();
  }
  const db = createDb({ url: testDatabaseUrl(template), poolMax: 1 });
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  project.provide('templateDb', template);
  return () => dropRunDatabases(template);
}

/** Drops the template and the databases this run's files cloned from it. */
async function dropRunDatabases(template: string): Promise<void> {
  const a = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 4 } });
  try {
    const prefix = runDatabasePrefix(template).replaceAll('_', '\\_');
    const rows = (await a.raw('select datname from pg_database where datname like ?', [`${prefix}%`]))
      .rows as { datname: string }[];
    const names = rows.map((r) => r.datname);
    await Promise.all(
      [0, 1, 2, 3].map(async (lane) => {
        for (let i = lane; i < names.length; i += 4)
          await a.raw('drop database if exists ?? with (force)', [names[i]!]);
      }),
    );
    await a.raw('drop database if exists ?? with (force)', [template]);
  } finally {
    await a.destroy();
  }
}
