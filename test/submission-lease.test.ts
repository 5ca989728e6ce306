// One sender at a time per invoice: an unfinished attempt holds a lease while its sender waits
// for Hacienda, and a second sender (a flow re-created after Redis lost its data, say) sends
// nothing until the first has an answer or has died. Real database, real simulator; the only
// change at the HTTP edge is a reception client whose POST takes its time, as a slow gateway's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvoiceRow } from '../db/queries/invoices.ts';
import { getInvoiceDocument } from '../db/queries/invoices.ts';
import type { ReceptionClient } from '../hacienda/client/index.ts';
import { createHaciendaAccess } from '../jobs/context.ts';
import {
  sendInvoiceDocument,
  SubmissionInFlightError,
  SUBMISSION_LEASE_MS,
} from '../jobs/invoice-flow/hacienda-send.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { waitFor } from './helpers/wait.ts';

const pad = (n: number) => String(n).padStart(12, '0');

let e: E2E;
let invoice: InvoiceRow;
let signedXml: Buffer;
let client: ReceptionClient;

beforeAll(async () => {
  e = await startE2E({ workers: true, simulator: { processingDelayMs: 20 } });
  const s = await seedIssuer(e.db, e.config);
  const r = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: `cli_${pad(s.client.id)}`,
    lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
  });
  expect(r.status).toBe(201);
  const id = Number(String(r.json.id).slice(4));
  const status = async () => ((await e.db('invoices').where({ id }).first('status')) as InvoiceRow).status;
  await waitFor(async () => (await status()) === 'aceptada', 60_000, 50, 'the invoice accepted');
  await e.stopWorkers();
  invoice = (await e.db('invoices').where({ id }).first()) as InvoiceRow;
  signedXml = (await getInvoiceDocument(e.db, id))!.signedXml!;
  client = await createHaciendaAccess(e.db, e.config).reception(invoice.companyId, invoice.livemode);
}, 90_000);
afterAll(async () => {
  await e?.close();
});

/** The real client, with a POST that leaves only after `ms` (a slow gateway). */
function slowPosting(ms: number): ReceptionClient & { posts: number } {
  const slow = {
    posts: 0,
    async submit(doc: Parameters<ReceptionClient['submit']>[0]) {
      slow.posts++;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return client.submit(doc);
    },
    status: (clave: string) => client.status(clave),
    rateLimit: () => client.rateLimit(),
  };
  return slow;
}

const ctx = () => ({ db: e.db, config: e.config });
const attempts = () =>
  e.db('hacienda_submissions').where({ invoiceId: invoice.id }).orderBy('id').select('outcome', 'leaseUntil');

describe('the submission lease', () => {
  it('a second sender sends nothing while the first waits for Hacienda, and says how long to wait', async () => {
    const before = (await attempts()).length;
    const first = slowPosting(1_500);
    const second = slowPosting(0);
    const sending = sendInvoiceDocument(ctx(), first, invoice, signedXml, {
      reason: 'lost',
      askFirst: 'never',
    });
    await waitFor(async () => (await attempts()).length === before + 1, 5_000, 10, 'the first attempt');

    const refused = await sendInvoiceDocument(ctx(), second, invoice, signedXml, {
      reason: 'lost',
      askFirst: 'never',
    }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SubmissionInFlightError);
    expect((refused as SubmissionInFlightError).retryAfterMs).toBeGreaterThan(0);
    expect((refused as SubmissionInFlightError).retryAfterMs).toBeLessThanOrEqual(SUBMISSION_LEASE_MS);
    expect(second.posts).toBe(0);

    // The first one's answer: Hacienda had the clave already ("ya fue recibido").
    expect(await sending).toBe('duplicate');
    const rows = await attempts();
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ outcome: 'duplicate', leaseUntil: null });

    // Once the first has its answer, the lease is gone and the next sender may go.
    expect(
      await sendInvoiceDocument(ctx(), second, invoice, signedXml, { reason: 'lost', askFirst: 'never' }),
    ).toBe('duplicate');
    expect(second.posts).toBe(1);
  }, 30_000);

  it('a dead sender holds the invoice only until its lease runs out; the next one asks Hacienda first', async () => {
    // A sender that died mid-POST a moment ago: its attempt is unfinished and its lease live.
    await e.db('hacienda_submissions').insert({
      invoiceId: invoice.id,
      clave: invoice.clave,
      reason: 'submit',
      outcome: 'sending',
      leaseUntil: e.db.raw(`now() + interval '800 milliseconds'`),
    });
    const next = slowPosting(0);
    const busy = await sendInvoiceDocument(ctx(), next, invoice, signedXml, {
      reason: 'submit',
      askFirst: 'if-attempted',
    }).catch((err: unknown) => err);
    expect(busy).toBeInstanceOf(SubmissionInFlightError);
    expect((busy as SubmissionInFlightError).retryAfterMs).toBeLessThanOrEqual(800);

    await new Promise((resolve) => setTimeout(resolve, 900));
    // Earlier attempts exist, so the clave's status comes first: found, nothing is sent.
    expect(
      await sendInvoiceDocument(ctx(), next, invoice, signedXml, {
        reason: 'submit',
        askFirst: 'if-attempted',
      }),
    ).toBe('status');
    expect(next.posts).toBe(0);
    expect((await attempts()).at(-1)).toMatchObject({ outcome: 'received', leaseUntil: null });
  }, 30_000);

  it('a live sender renews its lease while its call lasts', async () => {
    const slow = slowPosting(SUBMISSION_LEASE_MS / 3 + 1_500);
    const sending = sendInvoiceDocument(ctx(), slow, invoice, signedXml, {
      reason: 'lost',
      askFirst: 'never',
    });
    await waitFor(async () => (await attempts()).at(-1)?.outcome === 'sending', 5_000, 10, 'the attempt');
    const leaseAt = async () => new Date((await attempts()).at(-1)!.leaseUntil as string).getTime();
    const first = await leaseAt();
    await waitFor(async () => (await leaseAt()) > first, SUBMISSION_LEASE_MS, 50, 'a renewal');
    expect(await sending).toBe('duplicate');
  }, 60_000);
});
