// Why: every issued invoice is booked exactly once (receivables against revenue and IVA
// payable), a rejection is reversed exactly once, and payments are booked likewise. The
// database enforces both facts: unique (invoice, kind) for invoice entries and a deferred
// constraint trigger that refuses to commit an entry whose debits and credits differ.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').withKeyName('accounts_company_fk');
    t.boolean('livemode').notNullable();
    t.string('code', 20).notNullable();
    t.text('name').notNullable();
    t.text('type').notNullable();
    t.check(`type in ('asset', 'liability', 'equity', 'revenue', 'expense')`, [], 'accounts_type_check');
    t.text('role');
    t.unique(['company_id', 'livemode', 'code'], { indexName: 'accounts_code_key' });
  });
  await knex.raw(
    `create unique index accounts_role_key on accounts (company_id, livemode, role) where role is not null`,
  );

  await knex.schema.createTable('journal_entries', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id')
      .notNullable()
      .references('companies.id')
      .withKeyName('journal_entries_company_fk');
    t.boolean('livemode').notNullable();
    t.text('kind').notNullable();
    t.check(`kind in ('invoice', 'invoice_reversal', 'payment')`, [], 'journal_entries_kind_check');
    t.bigInteger('invoice_id').references('invoices.id').withKeyName('journal_entries_invoice_fk');
    t.bigInteger('payment_id');
    t.text('description').notNullable();
    t.string('currency', 3).notNullable();
    t.decimal('exchange_rate', 18, 5).notNullable();
    t.timestamp('posted_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['company_id', 'livemode', 'id'], 'journal_entries_page_idx');
  });
  await knex.raw(`create unique index journal_entries_invoice_kind_key on journal_entries (invoice_id, kind)
    where kind in ('invoice', 'invoice_reversal')`);
  await knex.raw(
    `create unique index journal_entries_payment_key on journal_entries (payment_id) where payment_id is not null`,
  );

  await knex.schema.createTable('journal_lines', (t) => {
    t.bigIncrements('id');
    t.bigInteger('entry_id')
      .notNullable()
      .references('journal_entries.id')
      .withKeyName('journal_lines_entry_fk');
    t.bigInteger('account_id')
      .notNullable()
      .references('accounts.id')
      .withKeyName('journal_lines_account_fk');
    t.decimal('debit', 18, 5).notNullable().defaultTo(0);
    t.decimal('credit', 18, 5).notNullable().defaultTo(0);
    t.check('debit >= 0 and credit >= 0 and (debit = 0) <> (credit = 0)', [], 'journal_lines_side_check');
    t.index(['entry_id'], 'journal_lines_entry_idx');
  });

  await knex.raw(`
    create function journal_entry_balanced() returns trigger language plpgsql as $$
    declare d numeric; c numeric; n int; e bigint;
    begin
      e := case when tg_op = 'DELETE' then old.entry_id else new.entry_id end;
      select coalesce(sum(debit), 0), coalesce(sum(credit), 0), count(*) into d, c, n
        from journal_lines where entry_id = e;
      if n > 0 and d <> c then
        raise exception 'journal entry % is unbalanced: debits % <> credits %', e, d, c
          using errcode = '23514', constraint = 'journal_entry_balanced';
      end if;
      return null;
    end $$`);
  await knex.raw(`create constraint trigger journal_lines_balanced after insert or update or delete on journal_lines
    deferrable initially deferred for each row execute function journal_entry_balanced()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists journal_lines_balanced on journal_lines');
  await knex.raw('drop function if exists journal_entry_balanced()');
  await knex.schema.dropTable('journal_lines');
  await knex.schema.dropTable('journal_entries');
  await knex.schema.dropTable('accounts');
}
