// Why: an attempt whose outcome is not known yet (`finished_at` null) was treated the same whether
// its worker had died or was still waiting for Hacienda's answer. After Redis lost its data the
// re-created flow asked Hacienda for the clave (not there yet: the first POST was still in
// flight) and sent the same document a second time. An unfinished attempt now holds a lease
// (`lease_until`) that its sender renews before every call to Hacienda; while the lease runs, no
// other job sends that invoice. A dead sender's lease simply runs out. Rows written before this
// migration have no lease (null), the same as an expired one.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('hacienda_submissions', (t) => {
    t.timestamp('lease_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('hacienda_submissions', (t) => {
    t.dropColumn('lease_until');
  });
}
