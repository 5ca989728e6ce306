// The in-process XSD check that runs before signing (hacienda/xsd-compiled.ts): documents the
// builder writes pass, one that breaks a facet is stopped with the XSD's message, and the sign
// job records that as a permanent processing error without signing or storing anything.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import { assertValidBeforeSigning, SchemaViolationError } from '../hacienda/xsd-compiled.ts';
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
});
