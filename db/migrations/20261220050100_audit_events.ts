// Why: a company needs to know who changed what (which key or person, which action, on which
// resource, from where). One row per successful write under /api/v1, plus sign-ins and sign-outs;
// written after the answer is sent (api/audit.ts), so a write never waits on it or fails for it.
// The list is a company's events in one mode, newest first, keyset-paged on the id: one index,
// (company_id, livemode, id), served by a backward scan. Events that belong to no company (a
// sign-in before choosing one) have company_id and livemode null and are never listed.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_events', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').references('id').inTable('companies').onDelete('CASCADE');
    t.boolean('livemode');
    t.text('actor_type').notNullable();
    t.bigInteger('actor_id');
    t.text('actor_name');
    t.text('action').notNullable();
    t.text('target_type');
    t.text('target_id');
    t.text('ip');
    t.text('request_id');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`alter table audit_events add constraint audit_events_actor_type_check
    check (actor_type in ('key', 'user'))`);
  await knex.raw(`alter table audit_events add constraint audit_events_mode_with_company_check
    check ((company_id is null) = (livemode is null))`);
  await knex.raw(`create index audit_events_page_idx on audit_events (company_id, livemode, id)
    where company_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_events');
}
