// Why: the receptor of an accepted document gets it by email (the PDF, the signed XML and
// Hacienda's answer). Per company: whether accepted documents are emailed at all, a reply-to
// and blind copies. Per invoice: extra recipients beside the client's address, and what became
// of the last email (its state and the addresses the receiving server refused for good, 5xx) so
// the invoice object can say it. Each email (the automatic one, then every resend) is a row of
// invoice_emails: the job that sends it carries its id only, and a lost job is found again here.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('companies', (t) => {
    t.boolean('email_enabled').notNullable().defaultTo(false);
    t.text('email_reply_to');
    t.jsonb('email_bcc').notNullable().defaultTo('[]');
  });
  await knex.schema.alterTable('invoices', (t) => {
    t.jsonb('email_recipients').notNullable().defaultTo('[]');
    t.text('email_status');
    t.check(
      `email_status is null or email_status in ('pending', 'sent', 'failed', 'bounced')`,
      [],
      'invoices_email_status_check',
    );
    t.timestamp('emailed_at', { useTz: true });
    t.jsonb('email_bounces').notNullable().defaultTo('[]');
  });
  await knex.schema.createTable('invoice_emails', (t) => {
    t.bigIncrements('id');
    t.bigInteger('invoice_id')
      .notNullable()
      .references('invoices.id')
      .withKeyName('invoice_emails_invoice_fk')
      .onDelete('CASCADE');
    /** 0: the automatic email at acceptance; 1, 2, …: resends. */
    t.integer('round').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.check(`status in ('pending', 'sent', 'failed', 'bounced')`, [], 'invoice_emails_status_check');
    t.jsonb('recipients').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('last_error');
    t.jsonb('bounces').notNullable().defaultTo('[]');
    t.text('message_id');
    t.text('request_id');
    t.timestamp('sent_at', { useTz: true });
    t.timestamps(true, true);
    t.unique(['invoice_id', 'round'], { indexName: 'invoice_emails_round_key' });
  });
  await knex.raw(
    `create index invoice_emails_pending_idx on invoice_emails (updated_at) where status = 'pending'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('invoice_emails');
  await knex.schema.alterTable('invoices', (t) => {
    t.dropChecks(['invoices_email_status_check']);
    t.dropColumns('email_recipients', 'email_status', 'emailed_at', 'email_bounces');
  });
  await knex.schema.alterTable('companies', (t) => {
    t.dropColumns('email_enabled', 'email_reply_to', 'email_bcc');
  });
}
