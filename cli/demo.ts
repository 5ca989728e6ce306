// The first-run demo used by `npm start` on an empty database: a business company with the
// sandbox-ready emisor data of `company create --demo` (test certificate, simulator credentials,
// two services), an all-scopes sandbox key and one client, so the README's curl issues an
// invoice that the Hacienda simulator accepts; and its owner, a person who signs in to the
// application (email confirmed) with a generated password. The key's secret and the password are
// returned once, never stored as given.
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../api/passwords.ts';
import { createApiKey } from '../db/queries/api-keys.ts';
import { createClient } from '../db/queries/clients.ts';
import { createCompany, setEmailDelivery } from '../db/queries/companies.ts';
import { addMembership } from '../db/queries/memberships.ts';
import { createUser } from '../db/queries/users.ts';
import { formatId } from '../domain/ids.ts';
import { SCOPES } from '../domain/scopes.ts';
import { companyInputFromOptions } from './commands/company.ts';
import { setUpDemoCompany } from './commands/credentials.ts';
import type { CliContext } from './context.ts';

export interface DemoSetup {
  companyId: string;
  keySecret: string;
  /** The owner's first sign-in to the application. */
  owner: { email: string; password: string };
  clientId: string;
  serviceIds: string[];
}

/** True when the database has no company yet (a fresh install). */
export async function isFirstRun(ctx: CliContext): Promise<boolean> {
  const row = await ctx.db('companies').first('id');
  return !row;
}

/**
 * A cédula jurídica (3-101-…, 10 digits like the demo company's) that no company has yet, for the
 * `company create` command `npm start` suggests: identification numbers are unique, so the demo's
 * own would be refused.
 */
export async function unusedExampleCedula(ctx: Pick<CliContext, 'db'>): Promise<string> {
  const taken = new Set<string>(
    await ctx.db('companies').where('id_number', 'like', '3101%').pluck('id_number'),
  );
  let n = 654321;
  while (taken.has(`3101${n}`)) n += 1;
  return `3-101-${n}`;
}

export async function createDemoSetup(ctx: CliContext): Promise<DemoSetup> {
  const input = companyInputFromOptions({
    name: 'Empresa Demo',
    legalName: 'Empresa Demo Sociedad Anonima',
    cedula: '3-101-123456',
    idType: '02',
    plan: 'business',
    demo: true,
  });
  const company = await createCompany(ctx.db, input);
  await setUpDemoCompany(ctx, company.id);
  // Accepted sandbox documents are emailed to the client: npm start's mail catcher shows them.
  await setEmailDelivery(ctx.db, company.id, { enabled: true });
  const tenant = { companyId: company.id, livemode: false };
  const { secret } = await createApiKey(ctx.db, {
    ...tenant,
    name: 'demo (npm start)',
    scopes: [...SCOPES],
  });
  const client = await createClient(
    ctx.db,
    tenant,
    {
      idType: '01',
      idNumber: '102340567',
      name: 'Juana Pérez Mora',
      email: 'juana@example.com',
      addresses: [
        {
          provincia: '1',
          canton: '01',
          distrito: '08',
          barrio: 'San Pedro',
          otrasSenas: '200 m norte de la iglesia',
        },
      ],
    },
    async () => {},
  );
  const services = (await ctx.db('services').where(tenant).orderBy('id').select('id')) as { id: number }[];
  const owner = { email: 'demo@factura.test', password: randomBytes(12).toString('base64url') };
  const user = await createUser(ctx.db, {
    email: owner.email,
    name: 'Persona Demo',
    locale: 'es-CR',
    passwordHash: await hashPassword(owner.password),
    confirmed: true,
  });
  await addMembership(ctx.db, company.id, Number(user.id), 'owner');
  return {
    companyId: formatId('company', company.id),
    keySecret: secret,
    owner,
    clientId: formatId('client', client.id),
    serviceIds: services.map((s) => formatId('service', s.id)),
  };
}
