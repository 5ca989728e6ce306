// Why: clients and the company can be edited, but an issued document must keep the parties it was
// signed with. The invoice held only client_id, so the reception request, the PDF and the email
// were rebuilt from the live rows: after an edit, Hacienda could be sent a receptor other than the
// signed XML's, and an accepted document's PDF could show a name it was not issued to. `parties`
// holds the emisor's and the receptor's data as the signature was built from them
// (domain/signed-parties.ts), written by the signing step in the statement that records
// signed_at. Null: not signed yet, or signed before this column (those keep reading the live rows).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.jsonb('parties');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('parties');
  });
}
