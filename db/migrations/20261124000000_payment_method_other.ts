// Why: payment method `otros` (TipoMedioPago 99) needs its description (MedioPagoOtros, 3 to 100
// characters) in the document; the invoice keeps it beside its payment methods so the document
// can be built from the row alone.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table invoices add column payment_method_other text
    constraint invoices_payment_method_other_length
      check (payment_method_other is null or char_length(payment_method_other) between 3 and 100)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table invoices drop column payment_method_other');
}
