// Why: every pass of the outbox relay asks, for each company whose invoices it starts, the highest
// place among that company's chunks still waiting to be signed (jobs/fair-share.ts). The answer
// walked all of the company's `pendiente` invoices through invoices_status_idx and read each row:
// with a backlog of invoices not started yet (a batch just recorded, a flow lost until the
// reconciler's next pass) or signed but not received (Hacienda unreachable), each pass read
// thousands of rows to find a handful (37,000 pending invoices: 8,300 buffers and 18 ms a pass).
// This index holds only the invoices the question is about, by place: the highest is its last
// entry for the company. The invoices a flow carries that are still unsigned are at most a few
// chunks per company, so the index stays small; its columns make the relay's chunk assignment and
// the signature (the two updates that could be heap-only) write index entries; both figures are in
// db/README.md.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index invoices_waiting_sign_idx on invoices (company_id, livemode, flow_priority)
    where status = 'pendiente' and signed_at is null and flow_chunk is not null
      and not coalesce((processing_error->>'permanent')::boolean, false)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index invoices_waiting_sign_idx');
}
