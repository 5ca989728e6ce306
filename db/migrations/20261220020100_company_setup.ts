// Why: a company is set up through the API (and the application) rather than only from the
// command line. It needs: when its Hacienda API user was last accepted by Hacienda's IDP (a stored
// password is known to work); its logo for the PDF, kept apart from the companies row (which every
// issue reads and caches) with its content type, size in pixels and SHA-256 (the PDF cache key);
// its sucursales and terminales (positions 1-3 and 4-8 of the consecutivo) with their names; and
// when it went live (the go-live checklist passed), which lets people work in live mode.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('company_credentials', (t) => {
    t.timestamp('hacienda_verified_at', { useTz: true });
  });
  await knex.schema.alterTable('companies', (t) => {
    t.timestamp('live_enabled_at', { useTz: true });
  });
  await knex.schema.createTable('company_logos', (t) => {
    t.bigInteger('company_id')
      .primary({ constraintName: 'company_logos_pkey' })
      .references('companies.id')
      .withKeyName('company_logos_company_fk')
      .onDelete('CASCADE');
    t.text('content_type').notNullable();
    t.check(`content_type in ('image/png', 'image/jpeg')`, [], 'company_logos_content_type_check');
    t.binary('data').notNullable();
    t.check('octet_length(data) <= 262144', [], 'company_logos_size_check');
    t.text('sha256').notNullable();
    t.integer('width').notNullable();
    t.integer('height').notNullable();
    t.timestamps(true, true);
  });
  await knex.schema.createTable('company_branches', (t) => {
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('company_branches_company_fk')
      .onDelete('CASCADE');
    t.text('code').notNullable();
    t.check(`code ~ '^[0-9]{3}$'`, [], 'company_branches_code_check');
    t.text('name').notNullable();
    t.timestamps(true, true);
    t.primary(['company_id', 'code'], { constraintName: 'company_branches_pkey' });
  });
  await knex.schema.createTable('company_terminals', (t) => {
    t.bigInteger('company_id').notNullable();
    t.text('branch_code').notNullable();
    t.text('code').notNullable();
    t.check(`code ~ '^[0-9]{5}$'`, [], 'company_terminals_code_check');
    t.text('name').notNullable();
    t.timestamps(true, true);
    t.primary(['company_id', 'branch_code', 'code'], { constraintName: 'company_terminals_pkey' });
    t.foreign(['company_id', 'branch_code'], 'company_terminals_branch_fk')
      .references(['company_id', 'code'])
      .inTable('company_branches')
      .onDelete('CASCADE');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('company_terminals');
  await knex.schema.dropTable('company_branches');
  await knex.schema.dropTable('company_logos');
  await knex.schema.alterTable('companies', (t) => {
    t.dropColumn('live_enabled_at');
  });
  await knex.schema.alterTable('company_credentials', (t) => {
    t.dropColumn('hacienda_verified_at');
  });
}
