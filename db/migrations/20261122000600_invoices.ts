// Why: invoices are the heart of the service. An invoice row holds everything needed to rebuild
// its document (lines and totals computed once, as JSON, immutable after issue) and its state
// in the flow. Numbering is gapless per (company, mode, document type, sucursal, terminal): a
// series row is incremented inside the creating transaction, so a rollback returns the number.
// Unique constraints make "one consecutivo, one clave, one external_id" facts of the database.
// Signed bytes and Hacienda's answer live in a side table so list queries stay narrow.
// Idempotency keys remember the first response for 24 hours.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('numbering_series', (t) => {
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('numbering_series_company_fk');
    t.boolean('livemode').notNullable();
    t.string('doc_type', 2).notNullable();
    t.string('branch', 3).notNullable();
    t.string('terminal', 5).notNullable();
    t.bigInteger('last_number').notNullable();
    t.primary(['company_id', 'livemode', 'doc_type', 'branch', 'terminal'], {
      constraintName: 'numbering_series_pkey',
    });
  });

  await knex.schema.createTable('invoices', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('invoices_company_fk');
    t.boolean('livemode').notNullable();
    t.bigInteger('client_id').notNullable().references('clients.id').withKeyName('invoices_client_fk');
    t.text('status').notNullable();
    t.check(
      `status in ('borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada')`,
      [],
      'invoices_status_check',
    );
    t.string('doc_type', 2).notNullable().defaultTo('01');
    t.string('branch', 3).notNullable();
    t.string('terminal', 5).notNullable();
    t.bigInteger('number');
    t.string('consecutivo', 20);
    t.string('clave', 50);
    t.string('security_code', 8);
    t.string('situacion', 1).notNullable().defaultTo('1');
    t.timestamp('issued_at', { useTz: true });
    t.string('currency', 3).notNullable();
    t.decimal('exchange_rate', 18, 5).notNullable();
    t.string('condition', 40).notNullable();
    t.string('condicion_venta', 2).notNullable();
    t.string('condition_other', 100);
    t.integer('credit_days');
    t.jsonb('payment_methods').notNullable();
    t.jsonb('lines').notNullable();
    t.jsonb('summary').notNullable();
    t.decimal('total', 18, 5).notNullable();
    t.decimal('balance_due', 18, 5).notNullable();
    t.text('payment_status').notNullable().defaultTo('unpaid');
    t.check(`payment_status in ('unpaid', 'partial', 'paid')`, [], 'invoices_payment_status_check');
    t.string('external_id', 255);
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.jsonb('rejection_reason');
    t.jsonb('processing_error');
    t.text('hacienda_status');
    t.timestamp('signed_at', { useTz: true });
    t.timestamp('submitted_at', { useTz: true });
    t.timestamp('accounted_at', { useTz: true });
    t.timestamp('accepted_at', { useTz: true });
    t.timestamp('rejected_at', { useTz: true });
    t.text('request_id');
    t.timestamps(true, true);
    t.check(
      `(status = 'borrador') = (number is null) and (number is null) = (clave is null) and (clave is null) = (consecutivo is null)`,
      [],
      'invoices_issued_fields_check',
    );
    t.check('balance_due >= 0 and balance_due <= total', [], 'invoices_balance_due_check');
    // The consecutivo's number has 10 digits.
    t.check('number between 1 and 9999999999', [], 'invoices_number_check');
  });
  await knex.raw(`create unique index invoices_number_key on invoices
    (company_id, livemode, doc_type, branch, terminal, number) where number is not null`);
  await knex.raw('create unique index invoices_clave_key on invoices (clave) where clave is not null');
  await knex.raw(`create unique index invoices_external_id_key on invoices (company_id, livemode, external_id)
    where external_id is not null`);
  await knex.raw('create index invoices_page_idx on invoices (company_id, livemode, id)');
  await knex.raw('create index invoices_status_idx on invoices (company_id, livemode, status, id)');
  await knex.raw('create index invoices_client_idx on invoices (company_id, livemode, client_id, id)');
  await knex.raw('create index invoices_created_idx on invoices (company_id, livemode, created_at)');
  await knex.raw('create index invoices_updated_idx on invoices (company_id, livemode, updated_at)');
  // The reconciler's view: issued invoices that have not reached a terminal state.
  await knex.raw(
    `create index invoices_in_flight_idx on invoices (updated_at) where status in ('pendiente', 'enviada')`,
  );

  await knex.schema.createTable('invoice_documents', (t) => {
    t.bigInteger('invoice_id')
      .primary({ constraintName: 'invoice_documents_pkey' })
      .references('invoices.id')
      .withKeyName('invoice_documents_invoice_fk');
    t.binary('signed_xml');
    t.text('response_xml');
    t.timestamp('response_at', { useTz: true });
    t.timestamps(true, true);
  });

  // Every call to Hacienda's reception endpoint and what came of it.
  await knex.schema.createTable('hacienda_submissions', (t) => {
    t.bigIncrements('id');
    t.bigInteger('invoice_id')
      .notNullable()
      .references('invoices.id')
      .withKeyName('hacienda_submissions_invoice_fk');
    t.string('clave', 50).notNullable();
    t.text('outcome').notNullable();
    t.integer('http_status');
    t.text('detail');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['invoice_id'], 'hacienda_submissions_invoice_idx');
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('idempotency_keys_company_fk');
    t.boolean('livemode').notNullable();
    t.string('key', 255).notNullable();
    t.text('route').notNullable();
    t.binary('request_hash').notNullable();
    t.integer('response_status').notNullable();
    t.jsonb('response_body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['company_id', 'livemode', 'key'], { constraintName: 'idempotency_keys_pkey' });
    t.index(['created_at'], 'idempotency_keys_created_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.dropTable('hacienda_submissions');
  await knex.schema.dropTable('invoice_documents');
  await knex.schema.dropTable('invoices');
  await knex.schema.dropTable('numbering_series');
}
