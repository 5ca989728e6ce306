// Why: which document types exist is said once, by their descriptors (domain/document-types/),
// and every row is written through the API, which refuses a type nobody registered. The column
// keeps only the shape of a code (two digits), so a new type needs no migration of its own.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropChecks(['invoices_doc_type_check']);
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.check(`doc_type ~ '^[0-9]{2}$'`, [], 'invoices_doc_type_check');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropChecks(['invoices_doc_type_check']);
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.check(`doc_type in ('01', '02', '03', '04', '08', '09', '10')`, [], 'invoices_doc_type_check');
  });
}
