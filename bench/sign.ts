// How many Facturas Electrónicas one core can build and sign per second, next to the raw RSA-2048
// signing rate of node:crypto measured in the same run: the gap is the XML/XAdES overhead on top
// of the one RSA operation that every signed document needs. Two signing paths on the same
// document: the fast path (hacienda/fast-signer.ts: canonical form read from the text, templates,
// node:crypto) that createSigner uses for builder output, and the plain xadesjs path (DOM,
// xmldsigjs canonicalisation) it falls back to. Likewise for verification: the simulator's fast
// verifier (hacienda/fast-verify.ts) against the xadesjs verifier (hacienda/verify.ts).
// Documents come from the real builder (hacienda/xml/factura.ts) with totals from
// domain/totals.ts. Runs sequentially on one core in well under a minute. The raw RSA rate and the
// fast path, whose ratio the bench targets, are measured in alternating slices (each its median),
// so that a moment the machine is busy elsewhere weighs on one slice, not on one of the two.
//
//   npm run bench:sign            (BENCH_SECONDS=<n> per measurement, default 3)
//
// runSignBench() returns the same figures for the lead's `npm run bench` suite.
import { createPrivateKey, sign as rsaSign } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { buildClave, buildConsecutivo } from '../domain/clave.ts';
import { computeDocumentTotals } from '../domain/totals.ts';
import { fastSigningKey, signFast } from '../hacienda/fast-signer.ts';
import { fastVerify, verifySignature } from '../hacienda/fast-verify.ts';
import { createSigner } from '../hacienda/signer.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import type { DocumentLine, FacturaDocument } from '../hacienda/xml/types.ts';

/** The bench document's issuer (also bench/sign-ab.ts). */
export const EMISOR = {
  idType: '02',
  idNumber: '3101123456',
  name: 'Servicios Ejemplo Sociedad Anonima',
} as const;

const LINES: DocumentLine[] = [
  {
    cabys: '8314100000200',
    description: 'Consultoría en sistemas',
    quantity: '2',
    unitPrice: '50000',
    unit: 'Sp',
    ivaRateCode: '08',
  },
  {
    cabys: '4522003990000',
    description: 'Computadora portátil',
    quantity: '1',
    unitPrice: '350000.55',
    unit: 'Unid',
    ivaRateCode: '08',
    discounts: [{ amount: '10000', code: '07' }],
  },
  {
    cabys: '4526100000200',
    description: 'Mouse inalámbrico',
    quantity: '3',
    unitPrice: '8500',
    unit: 'Unid',
    ivaRateCode: '08',
  },
];

/** The modules a document is built with: this checkout's, or another's (bench/sign-ab.ts). */
export interface BuildModules {
  buildClave: typeof buildClave;
  buildConsecutivo: typeof buildConsecutivo;
  computeDocumentTotals: typeof computeDocumentTotals;
  buildFacturaXml: typeof buildFacturaXml;
}
const OWN_MODULES: BuildModules = { buildClave, buildConsecutivo, computeDocumentTotals, buildFacturaXml };

/** The bench's FacturaElectronica number `n`, totals computed and XML written. */
export function buildDocument(n: number, m: BuildModules = OWN_MODULES): string {
  const issuedAt = new Date();
  const consecutivo = m.buildConsecutivo({ branch: '001', terminal: '00001', docType: '01', number: n });
  const doc: FacturaDocument = {
    clave: m.buildClave({
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
    totals: m.computeDocumentTotals(LINES, { currency: 'CRC', exchangeRate: '1' }),
  };
  return m.buildFacturaXml(doc);
}

interface Measurement {
  name: string;
  ops: number;
  seconds: number;
}

/** Runs `op` repeatedly (sequentially) for about `seconds`, after a warm-up (300 ms by default). */
async function measure(
  name: string,
  seconds: number,
  op: (i: number) => unknown,
  warmUpMs = 300,
): Promise<Measurement> {
  const warmUpEnd = performance.now() + warmUpMs;
  let i = 0;
  while (performance.now() < warmUpEnd) await op(i++);
  const start = performance.now();
  const end = start + seconds * 1000;
  let ops = 0;
  while (performance.now() < end) {
    await op(i++);
    ops++;
  }
  return { name, ops, seconds: (performance.now() - start) / 1000 };
}

/**
 * Measures `a` and `b` in `rounds` alternating slices of `seconds / rounds` each (after one
 * warm-up of each), and gives each the median of its slices' rates: a stall of the machine
 * lands in one slice of one of them, and a ratio of the two is taken from like moments.
 */
async function measureAlternating(
  seconds: number,
  rounds: number,
  a: { name: string; op: (i: number) => unknown },
  b: { name: string; op: (i: number) => unknown },
): Promise<[Measurement, Measurement]> {
  const slice = seconds / rounds;
  const slices: [Measurement[], Measurement[]] = [[], []];
  await measure(a.name, 0, a.op);
  await measure(b.name, 0, b.op);
  for (let r = 0; r < rounds; r++) {
    slices[0].push(await measure(a.name, slice, a.op, 0));
    slices[1].push(await measure(b.name, slice, b.op, 0));
  }
  const median = (ms: Measurement[]): Measurement =>
    [...ms].sort((x, y) => rate(x) - rate(y))[Math.floor(ms.length / 2)]!;
  return [median(slices[0]), median(slices[1])];
}

const rate = (m: Measurement): number => m.ops / m.seconds;
/** Alternating slices of the raw RSA and fast-path measurements (each gets `seconds` in all). */
const SLICES = 3;
const round = (n: number, digits = 0): number => Number(n.toFixed(digits));

export interface SignBenchResult {
  /** Documents built and signed per second, one core, createSigner's fast path. */
  docsPerSecond: number;
  /** The same with the plain xadesjs path (`engine: 'xadesjs'`). */
  xadesjsDocsPerSecond: number;
  /** Alias of xadesjsDocsPerSecond, the name bench/stages/signing.ts looks for. */
  xadesjsPerSecond: number;
  /** node:crypto RSA-2048 sign('sha256') per second, same run, same key. */
  rawRsaPerSecond: number;
  /** rawRsaPerSecond / docsPerSecond: how many RSA signatures one signed document costs. */
  ratio: number;
  /** rawRsaPerSecond / xadesjsDocsPerSecond. */
  xadesjsRatio: number;
  /** Documents built per second (totals + XML, no signature). */
  buildPerSecond: number;
  /** Signatures verified per second by the simulator's verifier (fast path). */
  verifyPerSecond: number;
  /** Signatures verified per second by the xadesjs verifier. */
  xadesjsVerifyPerSecond: number;
  documentBytes: number;
  signedBytes: number;
  secondsPerMeasurement: number;
  node: string;
  measurements: { name: string; perSecond: number; msEach: number }[];
}

/** Measures everything above, sequentially on the calling thread; prints nothing. */
export async function runSignBench(opts: { seconds?: number } = {}): Promise<SignBenchResult> {
  const seconds = opts.seconds ?? Number(process.env['BENCH_SECONDS'] ?? '3');
  const cert = await createTestCertificate({ ...EMISOR });
  const signer = await createSigner(cert.material);
  const xadesjsSigner = await createSigner(cert.material, { engine: 'xadesjs' });
  const privateKey = createPrivateKey({ key: cert.material.privateKeyPkcs8, format: 'der', type: 'pkcs8' });

  // The figures are only meaningful if each path is the one measured and its output verifies.
  const sample = buildDocument(1);
  const key = fastSigningKey(cert.material);
  if (!key || signFast(sample, new Date(), key, { signature: '0', reference: '0' }) === null) {
    throw new Error('the bench document does not take the fast signing path');
  }
  const signedSample = await signer.sign(sample);
  for (const s of [signedSample, await xadesjsSigner.sign(sample)]) {
    const check = await verifyXadesSignature(s);
    if (!check.valid) throw new Error(`bench document does not verify: ${check.errors.join('; ')}`);
  }
  if (fastVerify(signedSample).outcome !== 'valid') {
    throw new Error('the bench document does not take the fast verification path');
  }
  const sampleBytes = Buffer.from(sample, 'utf8');

  // The one ratio the bench targets (documents ÷ raw RSA) comes from alternating slices.
  const [raw, fast] = await measureAlternating(
    seconds,
    SLICES,
    { name: 'raw RSA-2048 crypto.sign(sha256)', op: () => rsaSign('sha256', sampleBytes, privateKey) },
    { name: 'build + sign (fast path)', op: (i) => signer.sign(buildDocument(i + 1)) },
  );
  const build = await measure('build FE (totals + XML)', seconds, (i) => buildDocument(i + 1));
  const xadesjs = await measure('build + sign (xadesjs path)', seconds, (i) =>
    xadesjsSigner.sign(buildDocument(i + 1)),
  );
  const verifyFast = await measure('verify (fast path)', seconds, () => verifySignature(signedSample));
  const verifyXadesjs = await measure('verify (xadesjs)', seconds, () => verifyXadesSignature(signedSample));

  const docsPerSecond = rate(fast);
  return {
    docsPerSecond: round(docsPerSecond),
    xadesjsDocsPerSecond: round(rate(xadesjs)),
    xadesjsPerSecond: round(rate(xadesjs)),
    rawRsaPerSecond: round(rate(raw)),
    ratio: round(rate(raw) / docsPerSecond, 2),
    xadesjsRatio: round(rate(raw) / rate(xadesjs), 2),
    buildPerSecond: round(rate(build)),
    verifyPerSecond: round(rate(verifyFast)),
    xadesjsVerifyPerSecond: round(rate(verifyXadesjs)),
    documentBytes: sampleBytes.length,
    signedBytes: Buffer.byteLength(signedSample),
    secondsPerMeasurement: seconds,
    node: process.version,
    measurements: [raw, build, fast, xadesjs, verifyFast, verifyXadesjs].map((m) => ({
      name: m.name,
      perSecond: round(rate(m)),
      msEach: round(1000 / rate(m), 3),
    })),
  };
}

async function main(): Promise<void> {
  const r = await runSignBench();
  const rows: [string, string, string][] = [
    ['measurement', 'per second', 'ms each'],
    ...r.measurements.map((m): [string, string, string] => [
      m.name,
      m.perSecond.toFixed(0),
      m.msEach.toFixed(3),
    ]),
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((row) => row[c]!.length)));
  const line = (row: [string, string, string]): string =>
    `${row[0].padEnd(widths[0]!)}  ${row[1].padStart(widths[1]!)}  ${row[2].padStart(widths[2]!)}`;
  console.log(
    `Signing benchmark: one core, sequential, ${r.secondsPerMeasurement}s per measurement, Node ${r.node}`,
  );
  console.log(
    `Document: FacturaElectronica with ${LINES.length} lines, ${r.documentBytes} bytes unsigned, ${r.signedBytes} signed`,
  );
  console.log('');
  console.log(line(rows[0]!));
  console.log(`${'-'.repeat(widths[0]!)}  ${'-'.repeat(widths[1]!)}  ${'-'.repeat(widths[2]!)}`);
  for (const row of rows.slice(1)) console.log(line(row));
  console.log('');
  console.log(`Documents built and signed per second: ${r.docsPerSecond}`);
  console.log(`xadesjs documents built and signed per second: ${r.xadesjsDocsPerSecond}`);
  console.log(`Raw RSA-2048 signatures per second:    ${r.rawRsaPerSecond}`);
  console.log(
    `Ratio raw RSA / signed documents:      ${r.ratio.toFixed(2)}x (xadesjs path ${r.xadesjsRatio.toFixed(2)}x)`,
  );
  console.log(
    `Signatures verified per second:        ${r.verifyPerSecond} (xadesjs ${r.xadesjsVerifyPerSecond})`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
