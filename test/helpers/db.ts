// A fresh database per test file, cloned from the migrated template.
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { createDb, type Db } from '../../db/connection.ts';
import { inject } from 'vitest';
import { adminUrl, testDatabaseUrl } from './db-urls.ts';

export interface TestDatabase {
  db: Db;
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `factura_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    await admin.raw('create database ?? template ??', [name, inject('templateDb')]);
  } finally {
    await admin.destroy();
  }
  const url = testDatabaseUrl(name);
  const db = createDb({ url, poolMax: 10 });
  return {
    db,
    url,
    name,
    async drop() {
      await db.destroy();
      const a = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
      try {
        await a.raw('drop database if exists ?? with (force)', [name]);
      } finally {
        await a.destroy();
      }
    },
  };
}
