// The worker's signers and reception clients (jobs/context.ts) on the real database: opened from a
// company's credentials, used again without reading them while the stamp the flow's steps read
// with their invoices (`company_credentials.updated_at`) is the same, and opened anew from the new
// credentials once the company saves others.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { saveHaciendaCredentials, saveSigningKey } from '../db/queries/credentials.ts';
import { invoicesToSign } from '../db/queries/invoice-flow.ts';
import { certificateInfo } from '../hacienda/signing-key.ts';
import { sealSigningMaterial } from '../hacienda/secret-box.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { createHaciendaAccess, MissingCredentialsError } from '../jobs/context.ts';
import { createTestCompany, testConfig } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { insertPendingInvoices } from './helpers/invoice-rows.ts';
import { sealSecret } from './helpers/secrets.ts';

let t: TestDatabase;
const config = testConfig();
let companyId: number;

async function saveCertificate(name: string): Promise<void> {
  const cert = await createTestCertificate({ idType: '02', idNumber: '3101765432', name });
  const info = certificateInfo(cert.material.certificateChain[0]!);
  await saveSigningKey(t.db, companyId, false, sealSigningMaterial(config.secretsKey, cert.material), info);
}
async function stamp(): Promise<Date> {
  const row = await t.db('company_credentials').where({ companyId, livemode: false }).first('updated_at');
  return row.updatedAt as Date;
}
/** Reads of company_credentials while `run` runs. */
async function credentialReads(run: () => Promise<unknown>): Promise<number> {
  let reads = 0;
  const seen = (q: { sql: string }) => {
    if (/from "company_credentials"/.test(q.sql)) reads += 1;
  };
  t.db.on('query', seen);
  try {
    await run();
  } finally {
    t.db.off('query', seen);
  }
  return reads;
}

beforeAll(async () => {
  t = await createTestDatabase();
  companyId = (await createTestCompany(t.db, { idNumber: '3101765432' })).id;
});
afterAll(async () => {
  await t.drop();
});

it('a signer is opened once per stamp, and again from the new certificate once another is saved', async () => {
  const access = createHaciendaAccess(t.db, config);
  await expect(access.signer(companyId, false, null)).rejects.toBeInstanceOf(MissingCredentialsError);
  await saveCertificate('Primera Sociedad Anonima');
  const first = await stamp();
  let signer = await access.signer(companyId, false, first);
  expect(new X509Certificate(signer.certificate).subject).toContain('Primera');
  expect(await credentialReads(() => access.signer(companyId, false, first))).toBe(0);
  // No stamp: read, as before.
  expect(await credentialReads(() => access.signer(companyId, false))).toBe(1);

  await new Promise((r) => setTimeout(r, 5));
  await saveCertificate('Segunda Sociedad Anonima');
  const second = await stamp();
  expect(second.getTime()).not.toBe(first.getTime());
  expect(await credentialReads(async () => (signer = await access.signer(companyId, false, second)))).toBe(1);
  expect(new X509Certificate(signer.certificate).subject).toContain('Segunda');
  expect(await credentialReads(() => access.signer(companyId, false, second))).toBe(0);
});

it('a reception client is kept per stamp; a sandbox without credentials reads them each time', async () => {
  const other = (await createTestCompany(t.db, { idNumber: '3101765433' })).id;
  const access = createHaciendaAccess(t.db, config);
  expect(await credentialReads(() => access.reception(other, false, null))).toBe(1);
  expect(await credentialReads(() => access.reception(other, false, null))).toBe(1);

  await saveHaciendaCredentials(t.db, companyId, false, 'cpj-3-101-765432@stag.example', sealSecret('uno'));
  const first = await stamp();
  const client = await access.reception(companyId, false, first);
  expect(
    await credentialReads(async () => expect(await access.reception(companyId, false, first)).toBe(client)),
  ).toBe(0);
  await new Promise((r) => setTimeout(r, 5));
  await saveHaciendaCredentials(t.db, companyId, false, 'cpj-3-101-765432@stag.example', sealSecret('dos'));
  const second = await stamp();
  let renewed: unknown;
  expect(
    await credentialReads(async () => (renewed = await access.reception(companyId, false, second))),
  ).toBe(1);
  expect(renewed).not.toBe(client);
});

it("the steps read the stamp with their invoices: the credentials' updated_at, null without any", async () => {
  const other = (await createTestCompany(t.db, { idNumber: '3101765434' })).id;
  const ids = [
    ...(await insertPendingInvoices(t.db, companyId, { from: 1, n: 1 })),
    ...(await insertPendingInvoices(t.db, other, { from: 2, n: 1 })),
  ];
  const rows = await invoicesToSign(t.db, ids);
  expect(rows.map((r) => r.credentialsStamp?.getTime() ?? null)).toEqual([(await stamp()).getTime(), null]);
});
