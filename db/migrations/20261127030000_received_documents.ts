// Why: a company also receives comprobantes from its suppliers and must answer each with a
// MensajeReceptor (accepted 05, partially accepted 06, rejected 07: its own consecutivo series in
// numbering_series). A received document is stored once per company, mode and clave (a repeat is
// the same row), with the supplier's signed bytes exactly as received and what the service read
// from them. Its answer is written on the same row: requested once (answer_result set from null
// under a guarded update), then signed (the number is reserved in the signing transaction, so a
// consecutivo is only spent on a message that was built and signed), sent, and judged by Hacienda
// (answer_status pendiente → enviada → aceptada | rechazada, or failed when it cannot be signed).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('received_documents', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('received_documents_company_fk');
    t.boolean('livemode').notNullable();
    t.string('clave', 50).notNullable();
    t.string('doc_type', 2).notNullable();
    t.string('consecutivo', 20).notNullable();
    t.timestamp('issued_at', { useTz: true }).notNullable();
    t.string('emisor_id_type', 2).notNullable();
    t.string('emisor_id_number', 20).notNullable();
    t.text('emisor_name').notNullable();
    t.string('receptor_id_type', 2).notNullable();
    t.string('receptor_id_number', 20).notNullable();
    t.string('currency', 3).notNullable();
    t.decimal('total_tax', 18, 5).notNullable();
    t.decimal('total', 18, 5).notNullable();
    t.binary('signed_xml').notNullable();
    t.text('request_id');
    // The answer (MensajeReceptor).
    t.text('answer_result');
    t.check(
      `answer_result is null or answer_result in ('accepted', 'partially_accepted', 'rejected')`,
      [],
      'received_documents_answer_result_check',
    );
    t.text('answer_status');
    t.check(
      `answer_status is null or answer_status in ('pendiente', 'enviada', 'aceptada', 'rechazada', 'failed')`,
      [],
      'received_documents_answer_status_check',
    );
    t.check('(answer_result is null) = (answer_status is null)', [], 'received_documents_answer_pair_check');
    t.string('answer_reason', 160);
    t.string('answer_tax_condition', 2);
    t.decimal('answer_iva_credit', 18, 5);
    t.decimal('answer_expense', 18, 5);
    t.string('answer_activity_code', 6);
    t.string('answer_consecutivo', 20);
    t.binary('answer_signed_xml');
    t.binary('answer_response_xml');
    t.text('answer_hacienda_status');
    t.jsonb('answer_rejection_reason');
    t.jsonb('answer_error');
    t.timestamp('answer_requested_at', { useTz: true });
    t.timestamp('answer_signed_at', { useTz: true });
    t.timestamp('answer_submitted_at', { useTz: true });
    t.timestamp('answered_at', { useTz: true });
    t.timestamps(true, true);
    t.unique(['company_id', 'livemode', 'clave'], { indexName: 'received_documents_clave_key' });
  });
  // The list: newest first per company and mode.
  await knex.raw(
    'create index received_documents_page_idx on received_documents (company_id, livemode, id desc)',
  );
  // The answers still on their way (what the reconciler of answers looks at).
  await knex.raw(
    `create index received_documents_answering_idx on received_documents (updated_at)
       where answer_status in ('pendiente', 'enviada')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('received_documents');
}
