// Why: people edit and retire clients and services from the application. A client or service that
// documents already name cannot be deleted, so it is archived instead: left out of the lists and
// searches and refused for new documents, kept for the documents that name it. `archived_at` is
// when (null: in use). Few rows are archived, so the lists' page indexes keep serving them.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('clients', (t) => {
    t.timestamp('archived_at', { useTz: true });
  });
  await knex.schema.alterTable('services', (t) => {
    t.timestamp('archived_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.dropColumn('archived_at');
  });
  await knex.schema.alterTable('clients', (t) => {
    t.dropColumn('archived_at');
  });
}
