// One member of a chunk that cannot be booked must never hold back the others. The API refuses a
// document whose entry in colones would not fit the ledger's columns (test/input-rules.test.ts),
// so the unbookable member is made here by narrowing the ledger for this database only: a check
// that casts every journal line to numeric(12,2) fails with Postgres's own "numeric field
// overflow" (22003) for an entry of ₡10,000,000,000 or more, as numeric(18,5) does at ₡10^13.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, flowJobId, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;

beforeAll(async () => {
  e = await startE2E({ workers: false, simulator: { processingDelayMs: 50 } });
  s = await seedIssuer(e.db, e.config);
  await e.db.raw(`alter table journal_lines add constraint journal_lines_narrow_test
    check (debit::numeric(12, 2) is not null and credit::numeric(12, 2) is not null)`);
});

afterAll(async () => {
  await e.close();
});

/** Invoices recorded while no worker runs (their outbox rows wait together: one chunk). */
async function createWaiting(bodies: Record<string, unknown>[]): Promise<number[]> {
  const created = await Promise.all(bodies.map((b) => api(e, 'POST', '/api/v1/invoices', s.key, b)));
  expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
  return created.map((r) => Number(String(r.json.id).slice(4)));
}

describe('a chunk with one unbookable member', () => {
  it('books and finishes every other member once; the unbookable one fails alone, visibly, and is not retried', async () => {
    const usd = { currency: 'USD', exchange_rate: '500', client_id: `cli_${pad(s.client.id)}` };
    const good = { ...usd, lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 3 }] };
    // 100 laptops at 450,000 USD + IVA, × 500: ₡25,425,000,000, beyond numeric(12,2).
    const poison = { ...usd, lines: [{ service_id: `srv_${pad(s.laptop.id)}`, qty: 100 }] };
    const bodies = Array.from({ length: 8 }, (_, i) => (i === 3 ? poison : good));
    const ids = await createWaiting(bodies);
    const bad = ids[3]!;
    const others = ids.filter((id) => id !== bad);

    await e.startWorkers();
    try {
      const statusOf = async () =>
        new Map(
          (
            (await e.db('invoices').whereIn('id', ids).select('id', 'status')) as {
              id: number;
              status: string;
            }[]
          ).map((r) => [Number(r.id), r.status]),
        );
      // Every member reaches Hacienda's verdict, the unbookable one too.
      await waitFor(
        async () => [...(await statusOf()).values()].every((st) => st === 'aceptada'),
        60_000,
        100,
        'every member of the chunk accepted',
      );
      expect(new Set(await e.db('invoices').whereIn('id', ids).pluck('flow_chunk')).size).toBe(1);

      // Booked exactly once each, the unbookable one never.
      const entries = (await e
        .db('journal_entries')
        .whereIn('invoice_id', ids)
        .where({ kind: 'invoice' })
        .pluck('invoice_id')) as number[];
      expect(entries.map(Number).sort((a, b) => a - b)).toEqual(others.sort((a, b) => a - b));
      const accounted = (
        await e.db('invoices').whereIn('id', others).whereNotNull('accounted_at').count('* as n')
      )[0]!;
      expect(Number(accounted.n)).toBe(others.length);

      // The unbookable one failed visibly: its permanent processing error (without SQL) and event.
      const row = await e.db('invoices').where({ id: bad }).first();
      expect(row.accountedAt).toBeNull();
      expect(row.processingError).toMatchObject({
        step: 'accounting',
        code: 'booking_failed',
        permanent: true,
      });
      expect(row.processingError.message).toMatch(/numeric field overflow \(SQLSTATE 22003\)/);
      expect(row.processingError.message).not.toMatch(/insert into/i);
      const failedEvents = await e.db('events').where({ type: 'invoice.processing_failed' }).pluck('data');
      expect(failedEvents.map((d: { id: string }) => d.id)).toEqual([`inv_${pad(bad)}`]);
      const shown = await api(e, 'GET', `/api/v1/invoices/inv_${pad(bad)}`, s.key);
      expect(shown.json.processing_error).toMatchObject({ step: 'accounting', permanent: true });

      // The chunk's booking ran once, never retried because of its bad member; its flow completed.
      const accounting = await e.runtime!.queues.accounting.getJob(
        (await flowJobId(e.db, bad, 'accounting'))!,
      );
      expect(await accounting!.isCompleted()).toBe(true);
      expect(accounting!.attemptsMade).toBeLessThanOrEqual(1);
      expect(accounting!.returnvalue).toBe('booked 7 of 8, 1 failed for good');
      const statusJob = (await flowJobId(e.db, bad, 'status'))!;
      await waitFor(
        async () => (await e.runtime!.queues.status.getJob(statusJob))?.isCompleted() ?? false,
        10_000,
      );
    } finally {
      await e.stopWorkers();
    }
  }, 90_000);

  // The sign job builds a chunk's documents, checks them against the XSD together, then signs
  // each: a member whose document fails the XSD (its client renamed outside the API after the
  // invoice was recorded, to a 2-character name) fails alone; the others are signed and accepted.
  it('signs every other member once when one fails the XSD; the failing one is recorded, not signed', async () => {
    const other = await api(e, 'POST', '/api/v1/clients', s.key, {
      cedula: '2-0345-0678',
      name: 'Juana Pérez',
    });
    expect(other.status, other.text).toBe(201);
    const line = { service_id: `srv_${pad(s.consulting.id)}`, qty: 1 };
    const bodies = Array.from({ length: 6 }, (_, i) => ({
      client_id: i === 2 ? other.json.id : `cli_${pad(s.client.id)}`,
      lines: [line],
    }));
    const ids = await createWaiting(bodies);
    const bad = ids[2]!;
    const others = ids.filter((id) => id !== bad);
    await e
      .db('clients')
      .where({ id: Number(String(other.json.id).slice(4)) })
      .update({ name: 'AB' });

    await e.startWorkers();
    try {
      await waitFor(
        async () =>
          (await e.db('invoices').whereIn('id', others).where({ status: 'aceptada' }).count('* as n'))[0]!
            .n == others.length,
        60_000,
        100,
        'every other member accepted',
      );
      expect(new Set(await e.db('invoices').whereIn('id', ids).pluck('flow_chunk')).size).toBe(1);
      const row = await e.db('invoices').where({ id: bad }).first();
      expect(row.status).toBe('pendiente');
      expect(row.processingError).toMatchObject({ step: 'sign', code: 'schema_invalid', permanent: true });
      expect(row.processingError.message).toMatch(/fails the v4.4 XSD: .*Nombre.*minLength/);
      const signedIds = (await e
        .db('invoice_documents')
        .whereIn('invoice_id', ids)
        .whereNotNull('signed_xml')
        .pluck('invoice_id')) as number[];
      expect(signedIds.map(Number).sort((a, b) => a - b)).toEqual([...others].sort((a, b) => a - b));
      const sign = await e.runtime!.queues.sign.getJob((await flowJobId(e.db, bad, 'sign'))!);
      expect(await sign!.isCompleted()).toBe(true);
      expect(sign!.attemptsMade).toBeLessThanOrEqual(1);
      expect(sign!.returnvalue).toBe('signed 5, 1 failed for good');
    } finally {
      await e.stopWorkers();
    }
  }, 90_000);

  // A member whose result one step cannot write (a check tied to its row, made here for this
  // database only) fails alone at that step; the others are accepted and booked once each.
  it.each([
    ['sign', 'invoice_documents', 'invoice_id <> ?', 'pendiente', 'signed_not_stored'],
    ['submit', 'invoices', "status <> 'enviada' or id <> ?", 'pendiente', 'result_not_recorded'],
    ['status', 'invoices', "status <> 'aceptada' or id <> ?", 'enviada', 'verdict_not_recorded'],
  ])(
    'a member whose %s result cannot be written fails alone',
    async (step, table, check, stays, code) => {
      const good = {
        client_id: `cli_${pad(s.client.id)}`,
        lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 3 }],
      };
      const ids = await createWaiting(Array.from({ length: 6 }, () => good));
      const bad = ids[2]!;
      const others = ids.filter((id) => id !== bad).sort((a, b) => a - b);
      const constraint = `${table}_refuses_one_test`;
      // DDL takes no parameters: the id (a number) is written into the check.
      const refuses = check.replace('?', String(Number(bad)));
      await e.db.raw(`alter table ${table} add constraint ${constraint} check (${refuses}) not valid`);
      await e.startWorkers();
      try {
        await waitFor(
          async () =>
            (await e.db('invoices').whereIn('id', others).pluck('status')).every((st) => st === 'aceptada'),
          60_000,
          100,
          'every other member accepted',
        );
        await waitFor(
          async () => (await e.db('invoices').where({ id: bad }).first()).processingError !== null,
          10_000,
        );
        const after = await e.db('invoices').where({ id: bad }).first();
        expect(after.status).toBe(stays);
        expect(after.processingError).toMatchObject({ step, code, permanent: true });
        expect(after.processingError.message).toMatch(/violates check constraint .* \(SQLSTATE 23514\)/);
        const entries = (await e
          .db('journal_entries')
          .whereIn('invoice_id', others)
          .where({ kind: 'invoice' })
          .pluck('invoice_id')) as number[];
        expect(entries.map(Number).sort((a, b) => a - b)).toEqual(others);
        const failedEvents = await e.db('events').where({ type: 'invoice.processing_failed' }).pluck('data');
        expect(failedEvents.map((d: { id: string }) => d.id)).toContain(`inv_${pad(bad)}`);
        // The step's job over the chunk completed (not retried over and over for its bad member).
        const job = await e.runtime!.queues[step as 'sign' | 'submit' | 'status'].getJob(
          (await flowJobId(e.db, bad, step as 'sign'))!,
        );
        await waitFor(async () => (await job?.isCompleted()) ?? false, 10_000);
      } finally {
        await e.stopWorkers();
        await e.db.raw(`alter table ${table} drop constraint ${constraint}`);
      }
    },
    90_000,
  );
});
