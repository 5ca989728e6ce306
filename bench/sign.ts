// How many Facturas Electrónicas one core can build and sign per second, next to the raw RSA-2048
// signing rate of node:crypto measured in the same run: the gap is the XML/XAdES overhead
// (parsing, canonicalisation, three digests, object model) on top of the one RSA operation that
// every signed document needs. Documents come from the real builder (hacienda/xml/factura.ts)
// with totals from domain/totals.ts. Runs sequentially on one core in well under a minute.
//
//   npm run bench:sign            (BENCH_SECONDS=<n> per measurement, default 3)
import { createPrivateKey, sign as rsaSign } from 'node:crypto';
import { buildClave, buildConsecutivo } from '../domain/clave.ts';
import { computeDocumentTotals } from '../domain/totals.ts';
import { createSigner } from '../hacienda/signer.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import type { DocumentLine, FacturaDocument } from '../hacienda/xml/types.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? '3');
const EMISOR = { idType: '02', idNumber: '3101123456', name: 'Servicios Ejemplo Sociedad Anonima' } as const;

const LINES: DocumentLine[] = [
  {
    cabys: '8314100000000',
    description: 'Consultoría en sistemas',
    quantity: '2',
    unitPrice: '50000',
    unit: 'Sp',
    ivaRateCode: '08',
  },
  {
    cabys: '4523000000000',
    description: 'Computadora portátil',
    quantity: '1',
    unitPrice: '350000.55',
    unit: 'Unid',
    ivaRateCode: '08',
    discounts: [{ amount: '10000', code: '07' }],
  },
  {
    cabys: '4321100000000',
    description: 'Mouse inalámbrico',
    quantity: '3',
    unitPrice: '8500',
    unit: 'Unid',
    ivaRateCode: '08',
  },
];

function buildDocument(n: number): string {
  const issuedAt = new Date();
  const consecutivo = buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number: n });
  const doc: FacturaDocument = {
    clave: buildClave({
      date: issuedAt,
      emisorId: EMISOR.idNumber,
      consecutivo,
      situacion: '1',
      securityCode: String(10_000_000 + (n % 90_000_000)).slice(-8),
    }),
    consecutivo,
    issuedAt,
    proveedorSistemas: EMISOR.idNumber,
    activityCode: '620100',
    emisor: {
      name: EMISOR.name,
      idType: EMISOR.idType,
      idNumber: EMISOR.idNumber,
      ubicacion: { provincia: '1', canton: '01', distrito: '01', otrasSenas: 'Avenida Central, calle 1' },
      emails: ['facturas@example.cr'],
    },
    receptor: { name: 'Cliente Ejemplo', idType: '01', idNumber: '109870654', email: 'cliente@example.cr' },
    condicionVenta: '01',
    mediosPago: [{ type: '04' }],
    lines: LINES,
    totals: computeDocumentTotals(LINES, { currency: 'CRC', exchangeRate: '1' }),
  };
  return buildFacturaXml(doc);
}

interface Measurement {
  name: string;
  ops: number;
  seconds: number;
}

/** Runs `op` repeatedly (sequentially) for about `seconds`, after a short warm-up. */
async function measure(name: string, op: (i: number) => unknown): Promise<Measurement> {
  const warmUpEnd = performance.now() + 300;
  let i = 0;
  while (performance.now() < warmUpEnd) await op(i++);
  const start = performance.now();
  const end = start + SECONDS * 1000;
  let ops = 0;
  while (performance.now() < end) {
    await op(i++);
    ops++;
  }
  return { name, ops, seconds: (performance.now() - start) / 1000 };
}

const rate = (m: Measurement): number => m.ops / m.seconds;

async function main(): Promise<void> {
  const cert = await createTestCertificate({ ...EMISOR });
  const signer = await createSigner(cert.material);
  const privateKey = createPrivateKey({ key: cert.material.privateKeyPkcs8, format: 'der', type: 'pkcs8' });
  const sample = buildDocument(1);
  const signedSample = await signer.sign(sample);
  const check = await verifyXadesSignature(signedSample);
  if (!check.valid) throw new Error(`bench document does not verify: ${check.errors.join('; ')}`);
  const sampleBytes = Buffer.from(sample, 'utf8');

  const raw = await measure('raw RSA-2048 crypto.sign(sha256)', () =>
    rsaSign('sha256', sampleBytes, privateKey),
  );
  const build = await measure('build FE (totals + XML)', (i) => buildDocument(i + 1));
  const buildSign = await measure('build + XAdES-EPES sign', (i) => signer.sign(buildDocument(i + 1)));
  const verify = await measure('xadesjs verify', () => verifyXadesSignature(signedSample));

  const docsPerSecond = rate(buildSign);
  const rows: [string, string, string][] = [
    ['measurement', 'per second', 'ms each'],
    ...[raw, build, buildSign, verify].map((m): [string, string, string] => [
      m.name,
      rate(m).toFixed(0),
      (1000 / rate(m)).toFixed(3),
    ]),
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: [string, string, string]): string =>
    `${r[0].padEnd(widths[0]!)}  ${r[1].padStart(widths[1]!)}  ${r[2].padStart(widths[2]!)}`;
  console.log(
    `Signing benchmark: one core, sequential, ${SECONDS}s per measurement, Node ${process.version}`,
  );
  console.log(
    `Document: FacturaElectronica with ${LINES.length} lines, ${sampleBytes.length} bytes unsigned, ${Buffer.byteLength(signedSample)} signed`,
  );
  console.log('');
  console.log(line(rows[0]!));
  console.log(`${'-'.repeat(widths[0]!)}  ${'-'.repeat(widths[1]!)}  ${'-'.repeat(widths[2]!)}`);
  for (const r of rows.slice(1)) console.log(line(r));
  console.log('');
  console.log(`Documents built and signed per second: ${docsPerSecond.toFixed(0)}`);
  console.log(`Raw RSA-2048 signatures per second:    ${rate(raw).toFixed(0)}`);
  console.log(`Ratio raw RSA / signed documents:      ${(rate(raw) / docsPerSecond).toFixed(2)}x`);
}

await main();
