// Why: rate limits are the company's (per mode), shared by all its keys, so minting keys no
// longer multiplies them; within that, a key may carry a lower limit of its own (an integration
// that must not starve the company's others). Null: the key is bounded by the company's limit only.
// The API refuses a key limit above the company's at creation; a company limit lowered later
// simply binds first.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.integer('rate_limit_per_second');
    t.check('rate_limit_per_second > 0', [], 'api_keys_rate_limit_positive');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropChecks('api_keys_rate_limit_positive');
    t.dropColumn('rate_limit_per_second');
  });
}
