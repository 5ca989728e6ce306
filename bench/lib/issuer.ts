// The bench's issuer, set up the way `company create --demo` does it: a corporate company with
// complete emisor data, a sandbox certificate carrying its identification (so the simulator's
// signer check passes), a client, three services, an all-scopes sandbox API key and a rate
// limit high enough that the bench measures the service rather than its limiter. Also the
// invoice bodies every stage sends: 3 lines, one series (the company's default branch/terminal);
// with BENCH_DOC_MIX=mixed, in turn: a factura, a tiquete to no one (04), a factura de
// exportación to a foreign client (09, in USD) and a factura with the 10 % service charge paid
// by card and cash (each type on its own series).
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

/** The documents the stages send: facturas only, or four kinds in turn (see the header). */
export type DocMix = 'facturas' | 'mixed';

export async function seedIssuer(db: Db, secretsKey: Buffer, mix: DocMix = 'facturas'): Promise<Issuer> {
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
      { cabys: '8314100000200', description: 'Consultoría en sistemas', unit: 'Sp', price: '50000.00' },
      { cabys: '4522003990000', description: 'Computadora portátil', unit: 'Unid', price: '350000.55' },
      { cabys: '4526100000200', description: 'Mouse inalámbrico', unit: 'Unid', price: '8500.00' },
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
  const factura = () => ({
    client_id: clientRef,
    lines: [
      { service_id: a, qty: 2 },
      { service_id: b, qty: 1, discount: { amount: '10000', code: '07' } },
      { service_id: c, qty: 3 },
    ],
  });
  let body: () => Record<string, unknown> = factura;
  if (mix === 'mixed') {
    const foreign = await createClient(
      db,
      tenant,
      {
        idType: '05',
        idNumber: 'US987654321',
        name: 'Global Imports LLC',
        email: 'ap@global-imports.example',
        foreignAddress: '1200 Harbor Blvd, Miami, FL 33132, United States',
        addresses: [],
      },
      async () => {},
    );
    const kinds: (() => Record<string, unknown>)[] = [
      factura,
      () => ({
        document_type: '04',
        payment_method: 'tarjeta',
        lines: [
          { service_id: c, qty: 2 },
          { service_id: a, qty: 1 },
        ],
      }),
      () => ({
        document_type: '09',
        client_id: formatId('client', foreign.id),
        currency: 'USD',
        exchange_rate: '505.20',
        lines: [
          { service_id: b, qty: 4, unit_price: '690.00', tariff_code: '847130000000' },
          { service_id: c, qty: 10, unit_price: '17.50', tariff_code: '847160000000' },
        ],
      }),
      () => ({
        ...factura(),
        other_charges: [{ code: '06', detail: 'Servicio 10 %' }],
        payments: [{ method: 'tarjeta', amount: '100000.00' }, { method: 'efectivo' }],
      }),
    ];
    let next = 0;
    body = () => kinds[next++ % kinds.length]!();
  }
  return {
    companyId: company.id,
    clientId: client.id,
    serviceIds: services.map((s) => s.id) as [number, number, number],
    key: secret,
    material: cert.material,
    body,
  };
}
