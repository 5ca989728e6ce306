// Why: Hacienda can answer 202 for a document and later 404 for its clave (it lost it). The
// status job then has to know since when the clave has been unknown, across job retries and
// flows re-created after a Redis loss, to re-send the same signed bytes after one bound and
// record a processing error after a further one. Null while Hacienda knows the clave.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.timestamp('hacienda_missing_since', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('hacienda_missing_since');
  });
}
