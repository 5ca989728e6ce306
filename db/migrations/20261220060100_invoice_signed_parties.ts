// Why: clients and the company can be edited, but an issued document must keep the parties it was
// signed with. The invoice held only client_id, so the reception request, the PDF and the email
// were rebuilt from the live rows: after an edit, Hacienda could be sent a receptor other than the
// signed XML's, and an accepted document's PDF could show a name it was not issued to.
// `invoice_documents.parties` holds the emisor's and the receptor's data as the signature was built
// from them (domain/signed-parties.ts, about 0.66 kB), written by the signing step in the insert
// that stores the signed XML. It sits beside the signed bytes rather than on `invoices`: an invoice
// row is about 1.9 kB, read whole by every step of the flow, and 0.66 kB more would push it past
// the TOAST threshold (2 kB). The signing statement's cost was measured the same either way, within
// the noise of a shared machine (Postgres backend + client CPU for a chunk of 100: 16–19 ms before,
// 18–22 ms after; about 0.02–0.06 ms per invoice). Null: signed before this column (those documents
// keep reading the live rows).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoice_documents', (t) => {
    t.jsonb('parties');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoice_documents', (t) => {
    t.dropColumn('parties');
  });
}
