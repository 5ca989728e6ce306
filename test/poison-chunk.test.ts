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
});
