// Why: the ledger is kept in colones and in centavos (CRC's minor unit), like every money figure
// the API shows: a payment of 113.00 books 113.00 to cash, not 112.99999, and a client's balance
// is a sum of centavos. The checks hold for every journal line and payment written from now on;
// they are NOT VALID so that entries booked earlier with 5 decimals stay as they were booked (a
// ledger is history: rounding old lines one by one could unbalance their entries).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table journal_lines add constraint journal_lines_centavos_check
    check (debit = round(debit, 2) and credit = round(credit, 2)) not valid`);
  await knex.raw(`alter table payments add constraint payments_amount_crc_centavos_check
    check (amount_crc = round(amount_crc, 2)) not valid`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table payments drop constraint payments_amount_crc_centavos_check');
  await knex.raw('alter table journal_lines drop constraint journal_lines_centavos_check');
}
