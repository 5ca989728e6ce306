// Emails of accepted documents, sent for real: the mail catcher runs as its own process (a real
// SMTP server) and every message is read back from it — recipients, reply-to, BCC (in the
// envelope only), the three attachments. Permanent refusals (550) are recorded as bounces with
// `email.failed`, transient ones (451) are retried with backoff until they fail; none of it
// touches the invoice's acceptance, journal entry or the client's balance. The resend route.
import { Queue, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../db/queries/clients.ts';
import { setEmailDelivery } from '../db/queries/companies.ts';
import { api, seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';
import { startCatcherProcess, type CatcherProcess, type CaughtSummary } from './helpers/mail-catcher.ts';
import { waitFor } from './helpers/wait.ts';

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let catcher: CatcherProcess;
const pad = (n: number) => String(n).padStart(12, '0');

beforeAll(async () => {
  catcher = await startCatcherProcess();
  e = await startE2E({
    env: {
      SMTP_URL: catcher.smtpUrl,
      SMTP_SANDBOX_URL: catcher.smtpUrl,
      EMAIL_MAX_ATTEMPTS: '3',
      EMAIL_BACKOFF_BASE_MS: '200',
    },
  });
  s = await seedIssuer(e.db, e.config);
  await setEmailDelivery(e.db, s.company.id, {
    enabled: true,
    replyTo: 'cobros@ejemplo.example',
    bcc: ['archivo@ejemplo.example'],
  });
}, 60_000);
afterAll(async () => {
  await e?.close();
  await catcher?.stop();
});

async function clientWithEmail(email: string) {
  const c = await createClient(
    e.db,
    { companyId: s.company.id, livemode: false },
    {
      idType: '01',
      idNumber: String(100000000 + Math.floor(Math.random() * 8e8)),
      name: 'Cliente Correo',
      email,
      addresses: [{ provincia: '1', canton: '01', distrito: '01', otrasSenas: 'Costado sur del parque' }],
    },
    async () => {},
  );
  return `cli_${pad(c.id)}`;
}

async function issue(body: Record<string, unknown> = {}) {
  const res = await api(e, 'POST', '/api/v1/invoices', s.key, {
    client_id: `cli_${pad(s.client.id)}`,
    lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 3 }],
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; clave: string; consecutivo: string };
}

async function emailSettles(id: string, statuses = ['sent', 'bounced', 'failed']) {
  let inv: any;
  await waitFor(
    async () => {
      inv = (await api(e, 'GET', `/api/v1/invoices/${id}`, s.key)).json;
      return statuses.includes(inv.email.status);
    },
    45_000,
    100,
    `the email of ${id}`,
  );
  return inv;
}

const byClave = (all: CaughtSummary[], clave: string) =>
  all.filter((m) => m.headers['x-factura-clave'] === clave);
const events = (id: string, type: string) => e.db('events').where({ type }).whereRaw(`data->>'id' = ?`, [id]);
const entries = (id: string) =>
  e.db('journal_entries').where({ invoiceId: Number(id.slice(4)), kind: 'invoice' });

describe('email to the receptor', () => {
  it('sends the accepted document with its PDF, signed XML and answer to the client, the extra recipients and the BCC', async () => {
    const inv = await issue({ email_recipients: ['contabilidad@cliente.example'] });
    const done = await emailSettles(inv.id);
    expect(done.status).toBe('aceptada');
    expect(done.email).toMatchObject({ status: 'sent', bounces: [] });
    expect(done.email.sent_at).not.toBeNull();
    expect(done.email_recipients).toEqual(['contabilidad@cliente.example']);

    const [m, ...others] = byClave(await catcher.messages(), inv.clave);
    expect(others).toHaveLength(0);
    expect(m!.to).toEqual(['juana@example.com', 'contabilidad@cliente.example']);
    expect(m!.cc).toEqual([]);
    expect(m!.replyTo).toEqual(['cobros@ejemplo.example']);
    expect(m!.envelope.to.sort()).toEqual(
      ['archivo@ejemplo.example', 'contabilidad@cliente.example', 'juana@example.com'].sort(),
    );
    expect(JSON.stringify(m!.headers)).not.toContain('archivo@ejemplo.example'); // BCC stays blind
    expect(m!.subject).toBe(`Factura electrónica ${inv.consecutivo} de Servicios Ejemplo Sociedad Anonima`);
    expect(m!.text).toContain(inv.clave);
    expect(m!.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      [`${inv.clave}.pdf`, 'application/pdf'],
      [`${inv.clave}.xml`, 'application/xml'],
      [`${inv.clave}-respuesta.xml`, 'application/xml'],
    ]);
    const pdf = await catcher.attachment(m!.id, 0);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const signed = await (
      await fetch(`${e.apiUrl}/api/v1/invoices/${inv.id}/xml`, {
        headers: { authorization: `Bearer ${s.key}` },
      })
    ).arrayBuffer();
    expect((await catcher.attachment(m!.id, 1)).equals(Buffer.from(signed))).toBe(true);
    expect((await catcher.attachment(m!.id, 2)).toString()).toContain('MensajeHacienda');

    expect(await events(inv.id, 'invoice.emailed')).toHaveLength(1);
    expect(await events(inv.id, 'email.failed')).toHaveLength(0);
  }, 60_000);

  it('records a permanent refusal (550) as a bounce with email.failed; the acceptance and the books stand', async () => {
    const client = await clientWithEmail('bounce.pagos@cliente.example');
    const inv = await issue({ client_id: client });
    const done = await emailSettles(inv.id);
    expect(done.status).toBe('aceptada');
    expect(done.email.status).toBe('bounced');
    expect(done.email.bounces).toEqual([
      { address: 'bounce.pagos@cliente.example', code: 550, response: expect.stringContaining('550') },
    ]);
    expect(await events(inv.id, 'email.failed')).toHaveLength(1);
    expect(await events(inv.id, 'invoice.accepted')).toHaveLength(1);
    expect(await entries(inv.id)).toHaveLength(1);
    const row = await e
      .db('invoice_emails')
      .where({ invoiceId: Number(inv.id.slice(4)) })
      .first();
    expect(row).toMatchObject({ status: 'bounced', attempts: 1 }); // no retry of a 5xx
    // Only the company's blind copy went out.
    expect(byClave(await catcher.messages(), inv.clave).map((m) => m.envelope.to)).toEqual([
      ['archivo@ejemplo.example'],
    ]);
  }, 60_000);

  it('sends to the recipients the server takes and records the ones it refuses', async () => {
    const inv = await issue({ email_recipients: ['bounce@cliente.example'] });
    const done = await emailSettles(inv.id);
    expect(done.email.status).toBe('sent');
    expect(done.email.bounces).toEqual([
      { address: 'bounce@cliente.example', code: 550, response: expect.any(String) },
    ]);
    const [m] = byClave(await catcher.messages(), inv.clave);
    expect(m!.envelope.to).not.toContain('bounce@cliente.example');
    expect(m!.envelope.to).toContain('juana@example.com');
  }, 60_000);

  it('retries a transient refusal (451) with backoff, then fails with email.failed', async () => {
    const client = await clientWithEmail('defer@cliente.example');
    const inv = await issue({ client_id: client });
    const done = await emailSettles(inv.id, ['failed', 'sent', 'bounced']);
    expect(done.email.status).toBe('failed');
    expect(done.status).toBe('aceptada');
    const row = await e
      .db('invoice_emails')
      .where({ invoiceId: Number(inv.id.slice(4)) })
      .first();
    expect(row.attempts).toBe(3);
    expect(row.lastError).toContain('451');
    expect(await events(inv.id, 'email.failed')).toHaveLength(1);
    expect(await entries(inv.id)).toHaveLength(1);
  }, 60_000);

  it('resends on POST /api/v1/invoices/{id}/email, with extra recipients, and refuses what is not accepted', async () => {
    const inv = await issue();
    await emailSettles(inv.id);
    const res = await api(e, 'POST', `/api/v1/invoices/${inv.id}/email`, s.key, {
      recipients: ['gerencia@cliente.example'],
    });
    expect(res.status, res.text).toBe(202);
    expect(res.json).toMatchObject({
      object: 'invoice_email',
      invoice_id: inv.id,
      round: 1,
      status: 'pending',
      recipients: ['juana@example.com', 'gerencia@cliente.example'],
    });
    // No body at all is a resend to the usual recipients.
    const bare = await fetch(`${e.apiUrl}/api/v1/invoices/${inv.id}/email`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(bare.status).toBe(202);
    await waitFor(
      async () => byClave(await catcher.messages(), inv.clave).length === 3,
      30_000,
      100,
      'three emails',
    );
    const sent = byClave(await catcher.messages(), inv.clave);
    // The first email went before the resends; the two resends are separate jobs that may finish in
    // either order.
    expect(sent[0]!.to).toEqual(['juana@example.com']);
    expect(sent.slice(1).map((m) => m.to.join(','))).toEqual(
      expect.arrayContaining(['juana@example.com,gerencia@cliente.example', 'juana@example.com']),
    );
    expect(new Set(sent.map((m) => m.messageId)).size).toBe(3);
    await emailSettles(inv.id);
    expect(await events(inv.id, 'invoice.emailed')).toHaveLength(3);

    const draft = await api(e, 'POST', '/api/v1/invoices', s.key, {
      client_id: `cli_${pad(s.client.id)}`,
      send: false,
      lines: [{ service_id: `srv_${pad(s.consulting.id)}`, qty: 1 }],
    });
    const refused = await api(e, 'POST', `/api/v1/invoices/${draft.json.id}/email`, s.key, {});
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('invalid_state');
    const bad = await api(e, 'POST', `/api/v1/invoices/${inv.id}/email`, s.key, {
      recipients: ['no es correo'],
    });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].path).toBe('/recipients/0');
  }, 90_000);
});

describe('the emails queue in Bull Board', () => {
  it('keeps completed email jobs like every queue (QUEUE_KEEP_COMPLETED_*); a pending email is still sent again', async () => {
    const inv = await issue();
    await emailSettles(inv.id, ['sent']);
    const row = await e
      .db('invoice_emails')
      .where({ invoiceId: Number(inv.id.slice(4)) })
      .first();
    const queue = new Queue('emails', { connection: e.connection, prefix: e.config.queuePrefix });
    try {
      let job: Job | undefined;
      await waitFor(
        async () => Boolean((job = await queue.getJob(`email-${row.id}`)) && (await job.isCompleted())),
        10_000,
        100,
        'the completed email job, kept in the queue',
      );
      expect(job!.opts.removeOnComplete).toEqual(e.config.queueKeepCompleted);
      expect(e.config.queueKeepCompleted).toEqual({ age: 3600, count: 1000 });
      // The kept job does not hold its id against the reconciler: an email found pending again is sent.
      const sentAt = new Date(row.sentAt).getTime();
      await e
        .db('invoice_emails')
        .where({ id: row.id })
        .update({ status: 'pending', updatedAt: e.db.raw(`now() - interval '1 hour'`) });
      expect((await e.runtime!.reconcileNow({ staleMs: 1000, only: ['emails'] })).recreated.emails).toBe(1);
      await waitFor(async () => {
        const again = await e.db('invoice_emails').where({ id: row.id }).first();
        return again.status === 'sent' && new Date(again.sentAt).getTime() > sentAt;
      }, 20_000);
    } finally {
      await queue.close();
    }
  });
});
