// Why: the client name search (a trigram GIN index, clients_search_name_idx) was built with GIN's
// default fastupdate, which parks new entries in a pending list of up to gin_pending_list_limit
// (4 MB) until a vacuum merges them. Every search scans that whole list: with 100,000 clients
// inserted in a burst, a search for a name nobody has read 454 buffers and took 18–36 ms where the
// index itself needs 7 (EXPLAIN ANALYZE in db/README.md). Client creation is rare next to
// searches, so entries now go straight into the index, and the pending list left behind is merged
// here once.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter index clients_search_name_idx set (fastupdate = off)');
  await knex.raw(`select gin_clean_pending_list('clients_search_name_idx'::regclass)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter index clients_search_name_idx reset (fastupdate)');
}
