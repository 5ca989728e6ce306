// `npm run migrate` / Procfile `release`: creates the database if needed and applies migrations.
import { loadConfig } from '../config/index.ts';
import { createDb } from './connection.ts';
import { ensureDatabase, migrateLatest } from './migrator.ts';
import { describeConnectionFailure } from './reachability.ts';

const config = loadConfig();
try {
  await ensureDatabase(config.databaseUrl);
} catch (err) {
  console.error(describeConnectionFailure('postgres', config.databaseUrl, err));
  process.exit(1);
}
const db = createDb({ url: config.databaseUrl, poolMax: 1, applicationName: 'factura-migrate' });
try {
  const applied = await migrateLatest(db);
  console.log(
    applied.length
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'database is up to date',
  );
} finally {
  await db.destroy();
}
