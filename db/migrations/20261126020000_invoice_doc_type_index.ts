// Why: the invoice list filters by document type (`document_type`). Facturas (01) are nearly every
// row, and the page index already serves them in order (a backward scan that skips the rare other
// rows). The other types (notes, tiquetes, receipts) are few: without an index of their own, a page
// of credit notes would walk the company's whole page index to find them. A partial index on the
// rows that are not facturas serves those pages and costs nothing when a factura is written.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index invoices_doc_type_idx on invoices (company_id, livemode, doc_type, id)
    where doc_type <> '01'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index invoices_doc_type_idx');
}
