// The bench's issuer, set up the way `company create --demo` does it: a corporate company with
// complete emisor data, a sandbox certificate carrying its identification (so the simulator's
// signer check passes), a client, three services, an all-scopes sandbox API key and a rate
// limit high enough that the bench measures the service rather than its limiter. Also the
// invoice bodies every stage sends: 3 lines, one series (the company's default branch/terminal).
import { SCOPES } from '../../domain/scopes.ts';
import { formatId } from '../../domain/ids.ts';
import { createApiKey } from '../../db/queries/api-keys.ts';
import { createClient } from '../../db/queries/clients.ts';
import { createCompany } from '../../db/queries/companies.ts';
import { saveSigningKey } from '../../db/queries/credentials.ts';
import { createService } from '../../db/queries/services.ts';
import type { Db } from '../../db/connection.ts';
import { sealSigningMaterial } from '../../hacienda/secret-box.ts';
import { certificateInfo, type SigningMaterial } from '../../hacienda/signing-key.ts';
import { createTestCertificate } from '../../hacienda/test-certificates.ts';

export const EMISOR_ID = '3101777777';

export interface Issuer {
  companyId: number;
  clientId: number;
  serviceIds: [number, number, number];
  key: string;
  material: SigningMaterial;
  body(): Record<string, unknown>;
}

export async function seedIssuer(db: Db, secretsKey: Buffer): Promise<Issuer> {
  const company = await createCompany(db, {
    name: 'Bench',
    plan: 'corporate',
    legalName: 'Empresa de Benchmark Sociedad Anonima',
    idType: '02',
    idNumber: EMISOR_ID,
    activityCode: '620100',
    provincia: '1',
    canton: '01',
    distrito: '01',
    otrasSenas: 'Avenida Central, calles 1 y 3',
    emails: ['facturas@bench.example'],
    rateLimitPerSecond: 1_000_000,
  });
  const cert = await createTestCertificate({ idType: '02', idNumber: EMISOR_ID, name: company.legalName });
  await saveSigningKey(
    db,
    company.id,
    false,
    sealSigningMaterial(secretsKey, cert.material),
    certificateInfo(cert.material.certificateChain[0]!),
  );
  const tenant = { companyId: company.id, livemode: false };
  const client = await createClient(
    db,
    tenant,
    {
      idType: '01',
      idNumber: '109870654',
      name: 'Cliente Frecuente Rojas Mora',
      email: 'cliente@bench.example',
      addresses: [{ provincia: '1', canton: '01', distrito: '08', otrasSenas: '200 m norte de la iglesia' }],
    },
    async () => {},
  );
  const services = await Promise.all(
    [
      { cabys: '8314100000000', description: 'Consultoría en sistemas', unit: 'Sp', price: '50000.00' },
      { cabys: '4523000000000', description: 'Computadora portátil', unit: 'Unid', price: '350000.55' },
      { cabys: '4321100000000', description: 'Mouse inalámbrico', unit: 'Unid', price: '8500.00' },
    ].map((s) => createService(db, tenant, { ...s, taxCode: '01', ivaRateCode: '08' })),
  );
  const { secret } = await createApiKey(db, {
    companyId: company.id,
    livemode: false,
    name: 'bench',
    scopes: [...SCOPES],
  });
  const clientRef = formatId('client', client.id);
  const [a, b, c] = services.map((s) => formatId('service', s.id)) as [string, string, string];
  return {
    companyId: company.id,
    clientId: client.id,
    serviceIds: services.map((s) => s.id) as [number, number, number],
    key: secret,
    material: cert.material,
    body: () => ({
      client_id: clientRef,
      lines: [
        { service_id: a, qty: 2 },
        { service_id: b, qty: 1, discount: { amount: '10000', code: '07' } },
        { service_id: c, qty: 3 },
      ],
    }),
  };
}
