// knex CLI configuration (`npx knex --knexfile knexfile.ts migrate:status`); the service itself
// migrates through db/migrator.ts, which uses the same migration source.
import { loadConfig } from './config/index.ts';
import { migrationConfig } from './db/migrator.ts';

const config = loadConfig();

export default {
  client: 'pg',
  connection: config.databaseUrl,
  migrations: migrationConfig,
};
