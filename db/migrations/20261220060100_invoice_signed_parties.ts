// Why: clients and the company can be edited, but an issued document must keep the parties it was
// signed with. The invoice held only client_id, so the reception request, the PDF and the email
// were rebuilt from the live rows: after an edit, Hacienda could be sent a receptor other than the
// signed XML's, and an accepted document's PDF could show a name it was not issued to.
// `invoice_documents.parties` holds the emisor's and the receptor's data as the signature was built
// from them (domain/signed-parties.ts), written by the signing step in the statement that stores
// the signed XML. It sits beside the signed bytes rather than on `invoices`: an invoice row is
// about 1.9 kB, and 0.6 kB more pushes it past the TOAST threshold (2 kB), so the signing step's
// update compressed every row (measured: 0.10 ms more per invoice), whereas the document row holds
// a TOAST pointer to its XML and takes the snapshot inline. Null: signed before this column (those
// documents keep reading the live rows).
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
