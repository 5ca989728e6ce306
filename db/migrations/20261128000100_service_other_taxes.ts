// Why: an item of the catalogue may carry taxes beside its IVA (a beer its selectivo de consumo and
// its impuesto específico, a fuel its impuesto único); a line takes them unless it states its own.
// Nullable, no default: adding the column rewrites nothing.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table services add column other_taxes jsonb');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table services drop column other_taxes');
}
