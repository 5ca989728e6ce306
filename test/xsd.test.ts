import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../config/index.ts';
import { createSigner, type XadesSigner } from '../hacienda/signer.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import { SchemaNotFoundError, XmllintMissingError, schemaPath, toHaciendaRows } from '../hacienda/xsd.ts';
import { TEST_EMISOR, testFactura } from './helpers/documents.ts';
import { validateXml, validateXmlBatch } from './helpers/xsd.ts';

const NS = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica';

let signer: XadesSigner;
let signed: string;
beforeAll(async () => {
  const cert = await createTestCertificate({
    idType: '02',
    idNumber: TEST_EMISOR.idNumber,
    name: TEST_EMISOR.name,
  });
  signer = await createSigner(cert.material);
  signed = await signer.sign(buildFacturaXml(testFactura()));
});

/** 1-based line and column of the first occurrence of `needle`. */
function position(xml: string, needle: string): { line: number; column: number } {
  const at = xml.indexOf(needle);
  const before = xml.slice(0, at).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

describe('schemaPath', () => {
  it('is <dir>/<set>/<Type>_V4.4.xsd in the directory given, the 2026 set by default', () => {
    expect(schemaPath('FacturaElectronica', { schemaDir: loadConfig().xsdDir })).toBe(
      join(loadConfig().xsdDir, '2026/v4.4/FacturaElectronica_V4.4.xsd'),
    );
    // Unset: the copy that ships with the service (hacienda/xsd), whatever is beside the checkout.
    const found = loadConfig({ ...process.env, XSD_DIR: '' }).xsdDir;
    expect(found).toBe(join(projectRoot, 'hacienda', 'xsd'));
    expect(existsSync(join(found, '2026/v4.4/FacturaElectronica_V4.4.xsd'))).toBe(true);
    expect(schemaPath('MensajeHacienda', { schemaDir: '/x', schemaSet: '2024/v4.4' })).toBe(
      '/x/2024/v4.4/MensajeHacienda_V4.4.xsd',
    );
  });

  it('reports a missing schema clearly', async () => {
    await expect(
      validateXml('FacturaElectronica', signed, { schemaDir: '/nonexistent' }),
    ).rejects.toBeInstanceOf(SchemaNotFoundError);
  });
});

describe('validateXml errors', () => {
  it('names the element, line and column of an out-of-order element, worded like Hacienda', async () => {
    // Swap CondicionVenta before Receptor.
    const receptor = /<Receptor>[\s\S]*?<\/Receptor>\n/.exec(signed)?.[0] ?? '';
    const condicion = '<CondicionVenta>01</CondicionVenta>\n';
    const broken = signed.replace(receptor + condicion, condicion + receptor);
    const result = await validateXml('FacturaElectronica', broken);
    expect(result.valid).toBe(false);
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors;
    expect({ line: error?.line, column: error?.column }).toEqual(position(broken, '<CondicionVenta>'));
    expect(error?.message).toContain(`Element '{${NS}}CondicionVenta': This element is not expected.`);
    expect(error?.cvc).toBe(
      `cvc-complex-type.2.4.a: Invalid content was found starting with element 'CondicionVenta'. One of '{"${NS}":Receptor}' is expected.`,
    );
    expect(toHaciendaRows(result.errors)).toEqual([
      { codigo: -1, mensaje: error?.cvc, fila: error?.line, columna: error?.column },
    ]);
  });

  it('reports enumeration, decimal and missing-signature errors', async () => {
    const badEnum = signed.replace('<CondicionVenta>01<', '<CondicionVenta>09<');
    const emptyDecimal = signed.replace(/<TotalVenta>[^<]*</, '<TotalVenta><');
    const unsigned = buildFacturaXml(testFactura());
    const [e1, e2, e3] = await validateXmlBatch('FacturaElectronica', [badEnum, emptyDecimal, unsigned]);
    expect(e1?.errors[0]?.cvc).toMatch(
      /^cvc-enumeration-valid: Value '09' is not facet-valid with respect to enumeration '\[01, 02, .*99\]'/,
    );
    expect(e1?.errors[0]?.line).toBe(position(badEnum, '<CondicionVenta>').line);
    expect(e2?.errors.map((e) => e.cvc)).toContain(
      "cvc-datatype-valid.1.2.1: '' is not a valid value for 'decimal'.",
    );
    expect(e3?.valid).toBe(false);
    expect(e3?.errors[0]?.cvc).toMatch(
      /^cvc-complex-type\.2\.4\.b: The content of element 'FacturaElectronica' is not complete\./,
    );
    expect(e3?.errors[0]?.cvc).toContain('"http://www.w3.org/2000/09/xmldsig#":Signature');
  });

  it('rewords facet and datatype errors the way Xerces does', async () => {
    const broken = signed
      .replace('<Detalle>Libros de actas<', '<Detalle>ab<')
      .replace('<PrecioUnitario>3500.50000<', '<PrecioUnitario>3500.123456<')
      .replace('<Cantidad>2.000<', '<Cantidad>dos<')
      .replace('<NumeroLinea>2<', '<NumeroLinea>x<');
    const result = await validateXml('FacturaElectronica', broken);
    expect(result.errors.map((e) => e.cvc)).toEqual([
      "cvc-datatype-valid.1.2.1: 'x' is not a valid value for 'integer'.",
      "cvc-datatype-valid.1.2.1: 'dos' is not a valid value for 'decimal'.",
      "cvc-minLength-valid: Value 'ab' with length = '2' is not facet-valid with respect to minLength '3'.",
      "cvc-fractionDigits-valid: Value '3500.123456' has 6 fraction digits, but the number of fraction digits has been limited to 5.",
    ]);
    expect(result.errors.map((e) => e.line)).toEqual([
      position(broken, '<NumeroLinea>x<').line,
      position(broken, '<Cantidad>dos<').line,
      position(broken, '<Detalle>ab<').line,
      position(broken, '<PrecioUnitario>3500.123456<').line,
    ]);
  });

  it('reports a document that is not well-formed with its line and column', async () => {
    const xml =
      '<?xml version="1.0" encoding="utf-8"?>\n<FacturaElectronica>\n<Clave>1</Clav>\n</FacturaElectronica>\n';
    const result = await validateXml('FacturaElectronica', xml);
    expect(result.valid).toBe(false);
    expect(result.errors[0]?.line).toBe(3);
    expect(result.errors[0]?.message).toMatch(/mismatch/i);
    expect(result.errors[0]?.column).toBeGreaterThan(1);
  });

  it('accepts the exact bytes as a Buffer', async () => {
    expect(await validateXml('FacturaElectronica', Buffer.from(signed, 'utf8'))).toEqual({
      valid: true,
      errors: [],
    });
  });

  it('fails clearly when xmllint is missing', async () => {
    await expect(
      validateXml('FacturaElectronica', signed, { xmllint: '/nonexistent/xmllint' }),
    ).rejects.toBeInstanceOf(XmllintMissingError);
  });
});
