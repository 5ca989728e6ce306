// The in-process XSD check that runs before signing (hacienda/xsd-compiled.ts): documents the
// builder writes pass, one that breaks a facet is stopped with the XSD's message, and the sign
// job records that as a permanent processing error without signing or storing anything.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import {
  assertValidBeforeSigning,
  checkBeforeSigning,
  closeSchemaValidator,
  SchemaViolationError,
} from '../hacienda/xsd-compiled.ts';
import { validateXml } from '../hacienda/xsd.ts';
import { testFactura } from './helpers/documents.ts';

const XSD_DIR = loadConfig().xsdDir;

describe('XSD before signing', () => {
  it('passes what the builder writes and agrees with xmllint on a broken facet', async () => {
    const xml = buildFacturaXml(testFactura());
    await expect(assertValidBeforeSigning('FacturaElectronica', xml, XSD_DIR)).resolves.toBeUndefined();
    const broken = xml.replace(/<Detalle>[^<]*<\/Detalle>/, `<Detalle>${'x'.repeat(201)}</Detalle>`);
    let caught: unknown;
    try {
      await assertValidBeforeSigning('FacturaElectronica', broken, XSD_DIR);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SchemaViolationError);
    expect((caught as Error).message).toMatch(/Detalle.*maxLength.*201.*200/);
    // xmllint on the same document (signature aside) finds the same facet.
    const lint = await validateXml('FacturaElectronica', broken, { schemaDir: XSD_DIR });
    expect(lint.errors.some((e) => /maxLength/.test(e.message))).toBe(true);
  });

  it('compiles once: 200 documents in well under a second each', async () => {
    const xml = buildFacturaXml(testFactura());
    const t = performance.now();
    for (let i = 0; i < 200; i++) await assertValidBeforeSigning('FacturaElectronica', xml, XSD_DIR);
    expect((performance.now() - t) / 200).toBeLessThan(50);
  });

  it('checks many documents together: an answer per document, in order, the same as one by one', async () => {
    const xml = buildFacturaXml(testFactura());
    const broken = xml.replace(/<Detalle>[^<]*<\/Detalle>/, `<Detalle>${'x'.repeat(201)}</Detalle>`);
    // 150 documents: more than one exchange with the thread (64 each at most).
    const docs = Array.from({ length: 150 }, (_, i) => ({
      docType: 'FacturaElectronica' as const,
      xml: i === 3 || i === 140 ? broken : i === 70 ? 'not xml' : xml,
    }));
    const errors = await checkBeforeSigning(docs, XSD_DIR);
    expect(errors).toHaveLength(150);
    expect(errors.flatMap((e, i) => (e ? [i] : []))).toEqual([3, 70, 140]);
    for (const i of [3, 140]) {
      expect(errors[i]).toBeInstanceOf(SchemaViolationError);
      expect(errors[i]!.message).toMatch(/Detalle.*maxLength/);
    }
    expect(errors[70]).toBeInstanceOf(SchemaViolationError);
    for (const i of [0, 3, 70]) {
      const alone = await assertValidBeforeSigning('FacturaElectronica', docs[i]!.xml, XSD_DIR).then(
        () => null,
        (err: Error) => err.message,
      );
      expect(alone).toBe(errors[i]?.message ?? null);
    }
    expect(await checkBeforeSigning([], XSD_DIR)).toEqual([]);
  });

  it('replaces a validator thread that was stopped, and the same document gets the same answer', async () => {
    const xml = buildFacturaXml(testFactura());
    const broken = xml.replace(/<Detalle>[^<]*<\/Detalle>/, `<Detalle>${'x'.repeat(201)}</Detalle>`);
    await assertValidBeforeSigning('FacturaElectronica', xml, XSD_DIR);
    await closeSchemaValidator();
    await expect(assertValidBeforeSigning('FacturaElectronica', xml, XSD_DIR)).resolves.toBeUndefined();
    await expect(assertValidBeforeSigning('FacturaElectronica', broken, XSD_DIR)).rejects.toThrow(
      /maxLength/,
    );
  });

  // libxml2 through tsx's loader cost ~150 MB of resident memory; on its own thread, with no
  // loader, it costs a few tens. The thread never keeps the process alive once idle.
  it('runs libxml2 off the main thread: a worker process that validated stays small and exits on its own', async () => {
    const script = `
      import { readFileSync } from 'node:fs';
      import { buildFacturaXml } from './hacienda/xml/factura.ts';
      import { assertValidBeforeSigning } from './hacienda/xsd-compiled.ts';
      import { testFactura } from './test/helpers/documents.ts';
      const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
      const before = rss();
      for (let i = 0; i < 50; i++)
        await assertValidBeforeSigning('FacturaElectronica', buildFacturaXml(testFactura()), ${JSON.stringify(XSD_DIR)});
      console.log(JSON.stringify({ grew: rss() - before }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: process.cwd(), timeout: 60_000 },
    );
    const { grew } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { grew: number };
    expect(grew).toBeLessThan(80);
  });
});
