// A company with one sandbox webhook endpoint, written straight to the database, for the tests of
// the webhook tables' queries and stores (no API, no secret that can be opened).
import type { Knex } from 'knex';
import { createCompany } from '../../db/queries/companies.ts';

export async function createWebhookCompany(
  db: Knex,
  o: { name: string; idNumber: string; events: string[] },
): Promise<{ companyId: number; endpointId: number }> {
  const company = await createCompany(db, {
    name: `${o.name} SA`,
    plan: 'business',
    legalName: `${o.name} Sociedad Anonima`,
    idType: '02',
    idNumber: o.idNumber,
    activityCode: '620100',
    provincia: '1',
    canton: '01',
    distrito: '01',
    barrio: 'Barrio Amon',
    otrasSenas: 'Avenida 7',
    emails: ['hooks@ejemplo.example'],
  });
  const [w] = await db('webhook_endpoints')
    .insert({
      companyId: company.id,
      livemode: false,
      url: 'http://127.0.0.1:9/hooks',
      events: o.events,
      secretEnc: Buffer.from('sealed'),
    })
    .returning(['id']);
  return { companyId: company.id, endpointId: Number(w.id) };
}
