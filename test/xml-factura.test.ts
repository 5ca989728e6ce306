import { readFileSync } from 'node:fs';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CODIGOS_DESCUENTO,
  CODIGOS_MONEDA,
  CONDICIONES_VENTA_FE,
  IVA_RATES,
  MEDIOS_PAGO,
  UNIDADES_MEDIDA,
} from '../domain/codes.ts';
import { DomainValidationError } from '../domain/errors.ts';
import { createSigner, type XadesSigner } from '../hacienda/signer.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import { XmlCharacterError, escapeAttr, escapeText } from '../hacienda/xml/writer.ts';
import { schemaPath, validateXml, validateXmlBatch } from './helpers/xsd.ts';
import type { DocumentLine, FacturaDocument } from '../hacienda/xml/types.ts';
import { TEST_EMISOR, TEST_LINES, TEST_RECEPTOR, testDocument, testFactura } from './helpers/documents.ts';
import { verifyWithXmlsec } from './helpers/xmlsec.ts';

const FE_NS = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica';

function parse(xml: string): Element {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const root = doc.documentElement;
  if (!root) throw new Error('no root');
  return root;
}

function children(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

function child(el: Element, name: string): Element {
  const found = children(el).find((c) => c.localName === name);
  if (!found) throw new Error(`no <${name}> in <${el.localName}>`);
  return found;
}

function names(el: Element): string[] {
  return children(el).map((c) => c.localName ?? '');
}

let signer: XadesSigner;
beforeAll(async () => {
  const cert = await createTestCertificate({
    idType: '02',
    idNumber: TEST_EMISOR.idNumber,
    name: TEST_EMISOR.name,
  });
  signer = await createSigner(cert.material);
});

describe('buildFacturaXml: structure', () => {
  const doc = testFactura();
  const xml = buildFacturaXml(doc);
  const root = parse(xml);

  it('starts with the UTF-8 declaration and the v4.4 FE root in its default namespace', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<FacturaElectronica ')).toBe(true);
    expect(root.localName).toBe('FacturaElectronica');
    expect(root.namespaceURI).toBe(FE_NS);
    expect(root.getAttribute('xmlns:ds')).toBe('http://www.w3.org/2000/09/xmldsig#');
    expect(xml).not.toContain('Signature');
  });

  it('writes the root children in XSD order', () => {
    expect(names(root)).toEqual([
      'Clave',
      'ProveedorSistemas',
      'CodigoActividadEmisor',
      'NumeroConsecutivo',
      'FechaEmision',
      'Emisor',
      'Receptor',
      'CondicionVenta',
      'DetalleServicio',
      'ResumenFactura',
    ]);
    expect(child(root, 'Clave').textContent).toBe(doc.clave);
    expect(child(root, 'NumeroConsecutivo').textContent).toBe(doc.consecutivo);
    // 16:00 UTC is 10:00 in Costa Rica.
    expect(child(root, 'FechaEmision').textContent).toBe('2026-11-21T10:00:00-06:00');
  });

  it('writes parties and lines in XSD order', () => {
    expect(names(child(root, 'Emisor'))).toEqual([
      'Nombre',
      'Identificacion',
      'NombreComercial',
      'Ubicacion',
      'Telefono',
      'CorreoElectronico',
    ]);
    expect(names(child(child(root, 'Emisor'), 'Ubicacion'))).toEqual([
      'Provincia',
      'Canton',
      'Distrito',
      'Barrio',
      'OtrasSenas',
    ]);
    expect(names(child(root, 'Receptor'))).toEqual(['Nombre', 'Identificacion', 'CorreoElectronico']);
    const lines = children(child(root, 'DetalleServicio'));
    expect(lines).toHaveLength(2);
    expect(names(lines[1] as Element)).toEqual([
      'NumeroLinea',
      'CodigoCABYS',
      'Cantidad',
      'UnidadMedida',
      'Detalle',
      'PrecioUnitario',
      'MontoTotal',
      'Descuento',
      'SubTotal',
      'BaseImponible',
      'Impuesto',
      'ImpuestoAsumidoEmisorFabrica',
      'ImpuestoNeto',
      'MontoTotalLinea',
    ]);
    const impuesto = child(lines[1] as Element, 'Impuesto');
    expect(names(impuesto)).toEqual(['Codigo', 'CodigoTarifaIVA', 'Tarifa', 'Monto']);
    // 2 × 3500.50 = 7001.00; 5% = 350.05; SubTotal 6650.95; 13% = 864.6235
    expect(child(lines[1] as Element, 'MontoTotal').textContent).toBe('7001.00000');
    expect(child(child(lines[1] as Element, 'Descuento'), 'MontoDescuento').textContent).toBe('350.05000');
    expect(child(impuesto, 'Monto').textContent).toBe('864.62350');
  });

  it('puts MedioPago inside ResumenFactura, before TotalComprobante', () => {
    const resumen = child(root, 'ResumenFactura');
    expect(names(resumen)).toEqual([
      'CodigoTipoMoneda',
      'TotalServGravados',
      'TotalMercanciasGravadas',
      'TotalGravado',
      'TotalVenta',
      'TotalDescuentos',
      'TotalVentaNeta',
      'TotalDesgloseImpuesto',
      'TotalImpuesto',
      'MedioPago',
      'TotalComprobante',
    ]);
    // 150000 + 7001 = 157001; − 350.05 = 156650.95; IVA 19500 + 864.6235 = 20364.6235
    expect(child(resumen, 'TotalVenta').textContent).toBe('157001.00000');
    expect(child(resumen, 'TotalVentaNeta').textContent).toBe('156650.95000');
    expect(child(resumen, 'TotalImpuesto').textContent).toBe('20364.62350');
    expect(child(resumen, 'TotalComprobante').textContent).toBe('177015.57350');
  });

  it('omits totals that do not apply instead of writing zeros or empty elements', () => {
    const exempt = buildFacturaXml(
      testFactura({
        lines: [
          {
            cabys: '2314000991000',
            description: 'Arroz',
            quantity: '1',
            unitPrice: '1000',
            unit: 'Kg',
            ivaRateCode: '10',
          },
        ],
      }),
    );
    const resumen = child(parse(exempt), 'ResumenFactura');
    expect(names(resumen)).toEqual([
      'CodigoTipoMoneda',
      'TotalMercanciasExentas',
      'TotalExento',
      'TotalVenta',
      'TotalVentaNeta',
      'TotalDesgloseImpuesto',
      'TotalImpuesto',
      'MedioPago',
      'TotalComprobante',
    ]);
    expect(exempt).not.toMatch(/<(\w+)><\/\1>/);
    expect(exempt).not.toMatch(/<\w+\/>/);
  });
});

describe('buildFacturaXml: escaping', () => {
  it('escapes & < > and keeps quotes and unicode intact', () => {
    const description = 'Tornillos & tuercas <M6> "acero" l\'inox — ñandú 🇨🇷 𝔘';
    const lines: DocumentLine[] = [{ ...(TEST_LINES[0] as DocumentLine), description }];
    const doc: FacturaDocument = {
      ...testFactura({ lines }),
      receptor: { ...TEST_RECEPTOR, name: 'Ana & Cía <Ltda> "La Única"' },
      otros: [{ code: 'a"b<c>&', text: 'línea 1\r\nlínea 2 ]]> fin' }],
    };
    const xml = buildFacturaXml(doc);
    expect(xml).toContain(
      '<Detalle>Tornillos &amp; tuercas &lt;M6&gt; "acero" l\'inox — ñandú 🇨🇷 𝔘</Detalle>',
    );
    expect(xml).toContain(
      '<OtroTexto codigo="a&quot;b&lt;c&gt;&amp;">línea 1&#13;\nlínea 2 ]]&gt; fin</OtroTexto>',
    );
    const root = parse(xml);
    const line = children(child(root, 'DetalleServicio'))[0] as Element;
    expect(child(line, 'Detalle').textContent).toBe(description);
    expect(child(child(root, 'Receptor'), 'Nombre').textContent).toBe('Ana & Cía <Ltda> "La Única"');
    const otro = child(child(root, 'Otros'), 'OtroTexto');
    expect(otro.getAttribute('codigo')).toBe('a"b<c>&');
    expect(otro.textContent).toBe('línea 1\r\nlínea 2 ]]> fin');
  });

  it('refuses characters XML 1.0 cannot carry', () => {
    for (const bad of ['bell\u0007', 'nul\u0000', 'lone \uD800 surrogate', 'noncharacter \uFFFE']) {
      const lines: DocumentLine[] = [{ ...(TEST_LINES[0] as DocumentLine), description: bad }];
      expect(() => buildFacturaXml(testFactura({ lines }))).toThrow(XmlCharacterError);
    }
  });

  it('escapes text and attribute values', () => {
    expect(escapeText('a&b<c>d"e\'f')).toBe('a&amp;b&lt;c&gt;d"e\'f');
    expect(escapeAttr('a&b<c>d"e\tf\ng')).toBe('a&amp;b&lt;c&gt;d&quot;e&#9;f&#10;g');
    expect(escapeText('plain ñ')).toBe('plain ñ');
  });
});

describe('buildFacturaXml: consistency checks', () => {
  function problems(doc: FacturaDocument): { path: string; code: string }[] {
    try {
      buildFacturaXml(doc);
    } catch (err) {
      expect(err).toBeInstanceOf(DomainValidationError);
      return (err as DomainValidationError).errors.map(({ path, code }) => ({ path, code }));
    }
    throw new Error('expected a DomainValidationError');
  }
  const doc = testFactura();

  it('requires the clave to match the consecutivo, the emisor and the document type', () => {
    expect(problems({ ...doc, consecutivo: '00100001010000000002' })).toEqual([
      { path: '/consecutivo', code: 'mismatch' },
    ]);
    expect(problems({ ...doc, emisor: { ...doc.emisor, idNumber: '3101999999' } })).toEqual([
      { path: '/emisor/idNumber', code: 'mismatch' },
    ]);
    const nc = testDocument({ docType: '03' });
    expect(problems({ ...doc, clave: nc.clave, consecutivo: nc.consecutivo })).toEqual([
      { path: '/consecutivo', code: 'mismatch' },
    ]);
  });

  it('checks sale condition, credit term, payment methods and line totals', () => {
    expect(problems({ ...doc, condicionVenta: '09' })).toEqual([
      { path: '/condicionVenta', code: 'not_allowed' },
    ]);
    expect(problems({ ...doc, condicionVenta: '02' })).toEqual([{ path: '/plazoCredito', code: 'required' }]);
    expect(problems({ ...doc, condicionVenta: '99' })).toEqual([
      { path: '/condicionVentaOtros', code: 'required' },
    ]);
    expect(problems({ ...doc, mediosPago: [{ type: '01' }, { type: '02', total: '10' }] })).toEqual([
      { path: '/mediosPago/0/total', code: 'required' },
    ]);
    expect(problems({ ...doc, mediosPago: [{ type: '99' }] })).toEqual([
      { path: '/mediosPago/0/other', code: 'required' },
    ]);
    expect(problems({ ...doc, lines: doc.lines.slice(1) })).toEqual([{ path: '/totals', code: 'mismatch' }]);
  });
});

describe('schema validation of signed documents', () => {
  it('a signed FE validates against the 2026 XSD and both verifiers accept it', async () => {
    const signed = await signer.sign(buildFacturaXml(testFactura()));
    expect(signed.indexOf('<ds:Signature')).toBeGreaterThan(signed.indexOf('</ResumenFactura>'));
    expect(await validateXml('FacturaElectronica', signed)).toEqual({ valid: true, errors: [] });
    expect((await verifyXadesSignature(signed)).valid).toBe(true);
    expect((await verifyWithXmlsec(signed)).valid).toBe(true);
  });

  it('every optional element lands where the XSD expects it', async () => {
    const full: DocumentLine = {
      cabys: '3562103040101',
      description: 'Medicamento con registro',
      commercialCodes: [
        { type: '01', code: 'SKU-1' },
        { type: '03', code: '7441234567890' },
      ],
      quantity: '12.345',
      unitPrice: '99.99999',
      unit: 'Unid',
      transactionType: '01',
      commercialUnit: 'Caja 12',
      serialNumbers: ['SN-0001', 'SN-0002'],
      registroMedicamento: 'MS-123',
      formaFarmaceutica: 'A',
      ivaRateCode: '04',
      discounts: [
        { amount: '1.5', code: '99', codeOther: 'Ajuste por lote', nature: 'Lote dañado' },
        { percent: '3.333', code: '05' },
      ],
      exoneration: {
        docType: '02',
        number: 'DIPLO-2026-1',
        article: '5',
        inciso: '2',
        institution: '02',
        issuedAt: new Date('2026-02-01T14:30:00Z'),
        rate: '4',
      },
    };
    const base = testFactura({
      lines: [full, ...TEST_LINES],
      totals: {
        otherCharges: [
          {
            code: '04',
            detail: 'Cobro por cuenta de tercero',
            amount: '500',
            thirdParty: { idType: '02', idNumber: '3101654321', name: 'Tercero S.A.' },
          },
          { code: '06', detail: 'Servicio 10%', percent: '10', amount: '15000' },
        ],
      },
    });
    const doc: FacturaDocument = {
      ...base,
      receptorActivityCode: '471100',
      receptor: {
        ...TEST_RECEPTOR,
        commercialName: 'Pérez Consultores',
        ubicacion: { provincia: '2', canton: '01', distrito: '01', otrasSenas: 'Frente a la iglesia' },
        otrasSenasExtranjero: 'Calle 5, Managua',
        phone: { countryCode: '506', number: '88887777' },
      },
      condicionVenta: '02',
      plazoCredito: 30,
      mediosPago: [
        { type: '04', total: '100000' },
        { type: '99', other: 'Cripto', total: '1' },
      ],
      referencias: [
        {
          docType: '10',
          number: testDocument({ number: 7 }).clave,
          issuedAt: new Date('2026-11-20T15:00:00Z'),
          code: '16',
          reason: 'Sustituye comprobante rechazado',
        },
      ],
      otros: [{ text: 'Gracias por su compra' }, { code: 'OC', text: 'Orden 4411' }],
    };
    const xml = buildFacturaXml(doc);
    const root = parse(xml);
    expect(names(root)).toEqual([
      'Clave',
      'ProveedorSistemas',
      'CodigoActividadEmisor',
      'CodigoActividadReceptor',
      'NumeroConsecutivo',
      'FechaEmision',
      'Emisor',
      'Receptor',
      'CondicionVenta',
      'PlazoCredito',
      'DetalleServicio',
      'OtrosCargos',
      'OtrosCargos',
      'ResumenFactura',
      'InformacionReferencia',
      'Otros',
    ]);
    const result = await validateXml('FacturaElectronica', await signer.sign(xml));
    expect(result).toEqual({ valid: true, errors: [] });
  });

  it('NC and TE documents use the same writers and validate against their own schemas', async () => {
    const nc = testDocument({
      docType: '03',
      number: 3,
      lines: [{ ...(TEST_LINES[0] as DocumentLine), ivaRateCode: '06' }],
    });
    const ncXml = buildComprobanteXml('NotaCreditoElectronica', {
      ...nc,
      referencias: [
        {
          docType: '01',
          number: testDocument().clave,
          issuedAt: new Date('2026-11-21T16:00:00Z'),
          code: '01',
          reason: 'Anula',
        },
      ],
    });
    expect(parse(ncXml).namespaceURI).toBe(
      'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/notaCreditoElectronica',
    );
    const te = testDocument({ docType: '04', number: 4 });
    const teXml = buildComprobanteXml('TiqueteElectronico', { ...te, receptor: undefined });
    expect(names(parse(teXml))).not.toContain('Receptor');
    expect(await validateXml('NotaCreditoElectronica', await signer.sign(ncXml))).toEqual({
      valid: true,
      errors: [],
    });
    expect(await validateXml('TiqueteElectronico', await signer.sign(teXml))).toEqual({
      valid: true,
      errors: [],
    });
    // An NC without InformacionReferencia is refused before writing.
    expect(() => buildComprobanteXml('NotaCreditoElectronica', nc)).toThrow(DomainValidationError);
  });

  it('an alphanumeric cédula jurídica is valid in the 2026 set only', async () => {
    const emisor = { ...TEST_EMISOR, idNumber: '3A01123456' };
    const cert = await createTestCertificate({ idType: '02', idNumber: emisor.idNumber, name: emisor.name });
    const alphaSigner = await createSigner(cert.material);
    const signed = await alphaSigner.sign(buildFacturaXml(testFactura({ emisor })));
    const [v2026, v2024] = await Promise.all([
      validateXml('FacturaElectronica', signed),
      validateXml('FacturaElectronica', signed, { schemaSet: '2024/v4.4' }),
    ]);
    expect(v2026.valid).toBe(true);
    expect(v2024.valid).toBe(false);
    expect(v2024.errors[0]?.cvc).toMatch(/^cvc-pattern-valid: Value '50621112600/);
  });

  it('validates many documents in one run and keeps their order', async () => {
    const signed = await Promise.all(
      [1, 2, 3].map(async (n) => signer.sign(buildFacturaXml(testFactura({ number: n })))),
    );
    const unsigned = buildFacturaXml(testFactura({ number: 4 }));
    const results = await validateXmlBatch('FacturaElectronica', [
      signed[0]!,
      unsigned,
      signed[1]!,
      signed[2]!,
    ]);
    expect(results.map((r) => r.valid)).toEqual([true, false, true, true]);
  });
});

describe('code lists match the 2026 FacturaElectronica XSD', () => {
  const xsd = new DOMParser().parseFromString(
    readFileSync(schemaPath('FacturaElectronica'), 'utf8').replace(/\r(?!\n)/g, '\n'),
    'text/xml',
  );
  const XS = 'http://www.w3.org/2001/XMLSchema';
  function enumOf(kind: 'simpleType' | 'element', name: string): string[] {
    const nodes = xsd.getElementsByTagNameNS(XS, kind);
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes.item(i);
      if (node?.getAttribute('name') !== name) continue;
      const values: string[] = [];
      const enums = node.getElementsByTagNameNS(XS, 'enumeration');
      for (let k = 0; k < enums.length; k++) values.push(enums.item(k)?.getAttribute('value') ?? '');
      return values;
    }
    throw new Error(`no ${kind} ${name}`);
  }

  it('UnidadMedida: all 101 units, same characters, same order', () => {
    expect(UNIDADES_MEDIDA.map(([code]) => code)).toEqual(enumOf('simpleType', 'UnidadMedidaType'));
    expect(UNIDADES_MEDIDA).toHaveLength(101);
  });

  it('currencies, IVA rates, sale conditions, payment methods and discount codes', () => {
    expect([...CODIGOS_MONEDA]).toEqual(enumOf('element', 'CodigoMoneda'));
    expect(Object.keys(IVA_RATES).sort()).toEqual(enumOf('simpleType', 'CodigoTarifaIVAType').sort());
    expect([...CONDICIONES_VENTA_FE].sort()).toEqual(enumOf('element', 'CondicionVenta').sort());
    expect(Object.keys(MEDIOS_PAGO).sort()).toEqual(enumOf('element', 'TipoMedioPago').sort());
    expect(Object.keys(CODIGOS_DESCUENTO).sort()).toEqual(enumOf('simpleType', 'CodigoDescuentoType').sort());
  });
});
