// Why: integrators saw the events of one document arrive out of order (a cash sale's invoice.paid
// before its invoice.accepted) and could not tell the order in which they happened. Every event
// about a document now carries the document (`document`: its public id, `inv_…` or `rcv_…`) and
// its place among that document's events (`sequence`: 1, 2, 3…); an event about no document
// (client.created, an endpoint's test) has neither. A trigger numbers each event as it is written,
// so no writer can forget it: the counter of each document (`event_sequences`) is taken with a row
// lock held until commit, so two transactions writing events of one document are numbered in the
// order they commit, with no gaps (a rolled-back event gives its number back). The webhook
// deliveries of one document to one endpoint go out in that order (jobs/webhooks/deliver.ts), read
// through the (document, sequence) index. Events already stored are numbered in id order.
import type { Knex } from 'knex';

/** The document an event is about: the object itself, or the invoice of a payment (invoice.paid, payment.created). */
const DOCUMENT_OF = (row: string) => `case
      when ${row}.type = 'webhook_endpoint.test' then null
      when ${row}.data->>'id' ~ '^(inv|rcv)_[0-9]+$' then ${row}.data->>'id'
      when ${row}.data->>'invoice_id' ~ '^inv_[0-9]+$' then ${row}.data->>'invoice_id'
    end`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table events add column document text, add column sequence integer`);
  await knex.raw(`alter table events add constraint events_sequence_check
    check ((document is null) = (sequence is null) and (sequence is null or sequence > 0))`);
  await knex.raw(`create table event_sequences (document text primary key, last integer not null)`);
  await knex.raw(`
    with numbered as (
      select id, ${DOCUMENT_OF('events')} as document from events),
    seq as (
      select id, document, row_number() over (partition by document order by id) as n
        from numbered where document is not null)
    update events e set document = seq.document, sequence = seq.n from seq where e.id = seq.id`);
  await knex.raw(`insert into event_sequences (document, last)
    select document, max(sequence) from events where document is not null group by document`);
  await knex.raw(
    `create index events_document_idx on events (document, sequence) where document is not null`,
  );
  await knex.raw(`
    create function events_number() returns trigger
    language plpgsql as $$
    begin
      new.document := ${DOCUMENT_OF('new')};
      if new.document is null then
        new.sequence := null;
        return new;
      end if;
      insert into event_sequences as s (document, last) values (new.document, 1)
        on conflict (document) do update set last = s.last + 1
        returning last into new.sequence;
      return new;
    end $$`);
  await knex.raw(`
    create trigger events_number before insert on events
    for each row execute function events_number()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger events_number on events');
  await knex.raw('drop function events_number()');
  await knex.raw('drop index events_document_idx');
  await knex.raw('drop table event_sequences');
  await knex.raw(
    'alter table events drop constraint events_sequence_check, drop column document, drop column sequence',
  );
}
