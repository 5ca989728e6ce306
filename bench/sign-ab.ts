// Building and signing, this checkout against another one, in one process: the bench's document
// (bench/sign.ts) is built with each checkout's totals, XML builder and signer in turn, in slices
// of SLICE_MS alternated with raw RSA-2048 signatures, so a noisy machine slows all three alike
// and the comparison is paired slice by slice. Prints ms per document for each checkout, each one's
// ratio to raw RSA (the signing stage's figure), and the median of the per-round speed ratios.
//
//   npm run bench:sign-ab -- <other checkout> [seconds=30]
//
// The other checkout needs this one's node_modules (a worktree with a symlink is enough).
import { createPrivateKey, sign as rsaSign } from 'node:crypto';
import { resolve } from 'node:path';
import { buildDocument, EMISOR, type BuildModules } from './sign.ts';
import type { XadesSigner } from '../hacienda/signer.ts';

const SLICE_MS = 250;

interface Side {
  name: string;
  modules: BuildModules;
  signer: XadesSigner;
  privateKeyPkcs8: Buffer;
  ms: number;
  docs: number;
  perRound: number[];
}

async function side(name: string, root: string): Promise<Side> {
  const load = (path: string) => import(resolve(root, path));
  const [clave, totals, factura, signer, certs] = await Promise.all([
    load('domain/clave.ts'),
    load('domain/totals.ts'),
    load('hacienda/xml/factura.ts'),
    load('hacienda/signer.ts'),
    load('hacienda/test-certificates.ts'),
  ]);
  const cert = await certs.createTestCertificate({ ...EMISOR });
  return {
    name,
    modules: {
      buildClave: clave.buildClave,
      buildConsecutivo: clave.buildConsecutivo,
      computeDocumentTotals: totals.computeDocumentTotals,
      buildFacturaXml: factura.buildFacturaXml,
    },
    signer: await signer.createSigner(cert.material),
    privateKeyPkcs8: cert.material.privateKeyPkcs8,
    ms: 0,
    docs: 0,
    perRound: [],
  };
}

/** Runs `op` for one slice; returns [ms, operations]. */
async function slice(op: (i: number) => unknown): Promise<[number, number]> {
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < SLICE_MS) await op(n++);
  return [performance.now() - start, n];
}

/** The value at fraction `q` of the sorted list (0.5: the median). */
const quantile = (sorted: number[], q: number): number => sorted[Math.floor(q * sorted.length)]!;

async function main(): Promise<void> {
  const other = process.argv[2];
  if (!other) throw new Error('usage: npm run bench:sign-ab -- <other checkout> [seconds]');
  const seconds = Number(process.argv[3] ?? '30');
  const sides = [await side('other', other), await side('this', resolve(import.meta.dirname, '..'))];
  const key = createPrivateKey({ key: sides[1]!.privateKeyPkcs8, format: 'der', type: 'pkcs8' });
  const payload = Buffer.from(buildDocument(1), 'utf8');
  const rsa = { ms: 0, ops: 0 };
  let n = 1;
  for (const s of sides) await s.signer.sign(buildDocument(n++, s.modules)); // warm-up
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const [rms, rops] = await slice(() => rsaSign('sha256', payload, key));
    rsa.ms += rms;
    rsa.ops += rops;
    for (const s of sides) {
      const [ms, docs] = await slice(() => s.signer.sign(buildDocument(n++, s.modules)));
      s.ms += ms;
      s.docs += docs;
      s.perRound.push(ms / docs);
    }
  }
  const rsaMs = rsa.ms / rsa.ops;
  console.log(`raw RSA-2048: ${rsaMs.toFixed(3)} ms each (${rsa.ops} in ${(rsa.ms / 1000).toFixed(1)} s)`);
  for (const s of sides) {
    const each = s.ms / s.docs;
    console.log(
      `${s.name.padEnd(5)} ${each.toFixed(3)} ms per document built and signed, ratio to raw RSA ${(rsaMs / each).toFixed(3)}`,
    );
  }
  const [a, b] = sides as [Side, Side];
  const ratios = a.perRound.map((x, i) => x / b.perRound[i]!).sort((x, y) => x - y);
  const [q1, median, q3] = [0.25, 0.5, 0.75].map((q) => quantile(ratios, q).toFixed(3));
  console.log(
    `this checkout is ${median}× as fast (median of ${ratios.length} rounds; quartiles ${q1}–${q3})`,
  );
}

await main();
