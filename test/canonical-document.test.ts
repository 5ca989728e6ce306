// The canonical form that the fast signer and verifier read from a document's text
// (hacienda/canonical-document.ts), checked against libxml2's C14N (`xmllint --c14n`, inclusive
// C14N 1.0 without comments): on the builder's output, on generated documents that mix what the
// scanner accepts with what it must leave to xadesjs, and on each shape it must refuse.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalizeDocument } from '../hacienda/canonical-document.ts';
import { buildComprobanteXml } from '../hacienda/xml/comprobante.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import { testDocument, testFactura, TEST_LINES } from './helpers/documents.ts';
import { EMISORES, facturaOf, invoiceArb, totalsOf } from './helpers/invoice-arbitraries.ts';

const NS_DS = 'http://www.w3.org/2000/09/xmldsig#';
const dir = mkdtempSync(join(tmpdir(), 'c14n-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNumber = 0;
/** libxml2's inclusive C14N 1.0 of a document, or null when xmllint finds it malformed. */
function xmllintC14n(xml: string): string | null {
  const file = join(dir, `${fileNumber++}.xml`);
  writeFileSync(file, xml);
  const run = spawnSync('xmllint', ['--c14n', '--nonet', file], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout : null;
}

/** The builder's own escapes that C14N spells differently: CR in text, whitespace and > in attributes. */
function builderDocumentWithEscapes(): string {
  return buildComprobanteXml('FacturaElectronica', {
    ...testFactura(),
    lines: [{ ...TEST_LINES[0]!, description: 'Línea uno\r\ncon CR, <etiqueta> & "comillas" > fin' }],
    totals: testDocument({ lines: [TEST_LINES[0]!] }).totals,
    otros: [{ text: 'Nota > 5 & "x"', code: 'a>b\t"c"\nd\re&f<g' }],
  });
}

describe('canonical form of builder documents', () => {
  it('is the root element as written, and equals libxml2 C14N', () => {
    const xml = buildFacturaXml(testFactura());
    const doc = canonicalizeDocument(xml);
    expect(doc).not.toBeNull();
    const rootStart = xml.indexOf('<FacturaElectronica ');
    const close = xml.lastIndexOf('</FacturaElectronica>');
    expect(doc!.rootCloseStart).toBe(close);
    expect(doc!.canonical).toBe(xml.slice(rootStart, close + '</FacturaElectronica>'.length));
    expect(doc!.canonical).toBe(xmllintC14n(xml));
    expect(doc!.namespaces).toEqual([
      ['', 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica'],
      ['ds', NS_DS],
    ]);
  });

  it('rewrites the escapes C14N spells differently (CR in text; tab, LF, CR, > in attributes)', () => {
    const xml = builderDocumentWithEscapes();
    expect(xml).toContain('&#13;');
    expect(xml).toContain('codigo="a&gt;b&#9;&quot;c&quot;&#10;d&#13;e&amp;f&lt;g"');
    const doc = canonicalizeDocument(xml);
    expect(doc).not.toBeNull();
    expect(doc!.canonical).toContain('codigo="a>b&#x9;&quot;c&quot;&#xA;d&#xD;e&amp;f&lt;g"');
    expect(doc!.canonical).toBe(xmllintC14n(xml));
  });

  it('equals libxml2 C14N for 60 generated invoices', () => {
    const cases = fc.sample(invoiceArb, { numRuns: 60, seed: 20261122 });
    for (const [i, c] of cases.entries()) {
      const xml = buildFacturaXml(facturaOf(c, i, totalsOf(c)));
      expect(canonicalizeDocument(xml)?.canonical, `invoice ${i}`).toBe(xmllintC14n(xml));
    }
    expect(EMISORES.length).toBeGreaterThan(1);
  });
});

describe('canonical form of generated documents', () => {
  // Pieces of text and attribute values, each already in its source spelling.
  const textPiece = fc.constantFrom(
    'a',
    'Z',
    ' ',
    '\t',
    '\n',
    'é',
    '😀',
    '>',
    '"',
    "'",
    ']]',
    '&amp;',
    '&lt;',
    '&gt;',
    '&quot;',
    '&apos;',
    '&#13;',
    '&#xD;',
    '&#10;',
    '&#233;',
    '&#x1F600;',
    '&#1;',
    '&bogus;',
  );
  const attrPiece = fc.constantFrom(
    'a',
    ' ',
    '>',
    "'",
    'ñ',
    '&amp;',
    '&lt;',
    '&gt;',
    '&quot;',
    '&#9;',
    '&#xA;',
    '&#13;',
    '\t',
  );
  const text = fc.array(textPiece, { maxLength: 6 }).map((a) => a.join(''));
  const attrValue = fc.array(attrPiece, { maxLength: 4 }).map((a) => a.join(''));
  const attributes = fc
    .uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'Id', 'codigo', 'z9'), attrValue), {
      maxLength: 3,
      selector: (t) => t[0],
    })
    .map((list) => list.map(([k, v]) => ` ${k}="${v}"`).join(''));
  interface Tree {
    name: string;
    attributes: string;
    children: (Tree | string)[];
    selfClosing: boolean;
  }
  const tree = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.record({
      name: fc.constantFrom('A', 'Linea', 'x-y', 'B.c', '_z'),
      attributes,
      children: fc.array(fc.oneof({ maxDepth: 3 }, text, tie('tree')), { maxLength: 4 }),
      selfClosing: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    }),
  })).tree;
  const write = (t: Tree | string): string =>
    typeof t === 'string'
      ? t
      : t.selfClosing && t.children.length === 0
        ? `<${t.name}${t.attributes}/>`
        : `<${t.name}${t.attributes}>${t.children.map(write).join('')}</${t.name}>`;
  const rootDeclarations = fc
    .shuffledSubarray(
      [
        ' xmlns="urn:r"',
        ' xmlns:p="urn:p"',
        ` xmlns:ds="${NS_DS}"`,
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
        ' version="4.4"',
        ' Id="root"',
      ],
      { minLength: 0 },
    )
    .map((list) => list.join(''));
  const prolog = fc.constantFrom(
    '',
    '<?xml version="1.0" encoding="utf-8"?>\n',
    "<?xml version='1.0'?>",
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n\n',
  );
  const documentArb = fc
    .tuple(
      prolog,
      rootDeclarations,
      fc.array(fc.oneof(text, tree), { maxLength: 5 }),
      fc.constantFrom('', '\n'),
    )
    .map(
      ([head, decls, children, tail]) => `${head}<Root${decls}>${children.map(write).join('')}</Root>${tail}`,
    );

  it('is read when possible, and then always equals libxml2 C14N; malformed text is never read', () => {
    const documents = fc.sample(documentArb, { numRuns: 300, seed: 4242 });
    let read = 0;
    for (const xml of documents) {
      const expected = xmllintC14n(xml);
      const doc = canonicalizeDocument(xml);
      if (doc) {
        read++;
        expect(doc.canonical, xml).toBe(expected);
        expect(xml.startsWith('</Root>', doc.rootCloseStart), xml).toBe(true);
      }
      if (expected === null) expect(doc, xml).toBeNull();
    }
    // The generator mixes accepted and refused shapes; both must be well represented.
    expect(read).toBeGreaterThan(60);
    expect(read).toBeLessThan(documents.length);
  });
});

describe('shapes left to xadesjs', () => {
  const ok = '<?xml version="1.0" encoding="utf-8"?>\n<R xmlns="urn:r" a="1">\n<B c="2">x</B>\n</R>\n';

  it('reads the reference document', () => {
    expect(canonicalizeDocument(ok)?.canonical).toBe('<R xmlns="urn:r" a="1">\n<B c="2">x</B>\n</R>');
  });

  it.each([
    ['a comment', ok.replace('<B', '<!-- c --><B')],
    ['a processing instruction', ok.replace('<B', '<?pi x?><B')],
    ['a PI before the root', ok.replace('\n<R', '\n<?xml-stylesheet href="a"?><R')],
    ['a CDATA section', ok.replace('>x<', '><![CDATA[x]]><')],
    ['a DOCTYPE', ok.replace('\n<R', '\n<!DOCTYPE R><R')],
    ['an empty-element tag', ok.replace('<B c="2">x</B>', '<B c="2"/>')],
    ['a single-quoted attribute', ok.replace('c="2"', "c='2'")],
    ['extra whitespace in a tag', ok.replace('c="2">', 'c="2" >')],
    ['whitespace in an end tag', ok.replace('</B>', '</B >')],
    ['a CR character', ok.replace('>x<', '>x\r<')],
    ['a tab in an attribute value', ok.replace('c="2"', 'c="\t2"')],
    ['a namespace declaration below the root', ok.replace('<B ', '<B xmlns:q="urn:q" ')],
    ['a prefixed element', ok.replace('<R ', '<R xmlns:q="urn:q" ').replace(/<(\/?)B/g, '<$1q:B')],
    ['a ds:Signature', ok.replace('<R ', `<R xmlns:ds="${NS_DS}" `).replace('<B', '<ds:Signature/><B')],
    ['a prefixed attribute', ok.replace('c="2"', 'p:c="2"')],
    ['xml:lang on the root', ok.replace('a="1"', 'a="1" xml:lang="es"')],
    ['xmldsig as default namespace', ok.replace('urn:r', NS_DS)],
    ['an empty default namespace', ok.replace('xmlns="urn:r"', 'xmlns=""')],
    ['a relative namespace name', ok.replace('urn:r', 'r')],
    ['a redefined ds prefix', ok.replace('<R ', '<R xmlns:ds="urn:other" ')],
    ['a xades prefix', ok.replace('<R ', '<R xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" ')],
    ['a duplicate attribute', ok.replace('c="2"', 'c="2" c="3"')],
    ['mismatched tags', ok.replace('</B>', '</C>')],
    ['an unclosed root', ok.replace('</R>\n', '')],
    ['text after the root', `${ok}x`],
    ['a second root', `${ok}<R/>`],
    [']]> in text', ok.replace('>x<', '>x]]>y<')],
    ['an unknown entity', ok.replace('>x<', '>&nbsp;<')],
    ['a reference to a non-XML character', ok.replace('>x<', '>&#1;<')],
    ['a control character', ok.replace('>x<', '>\u0001<')],
    ['an unpaired surrogate', ok.replace('>x<', '>\uD800<')],
    ['a non-ASCII element name', ok.replace(/<(\/?)B/g, '<$1Año')],
    // The character checks of text and attribute values, on each path the scanner reads them.
    ['a control character in an attribute value', ok.replace('c="2"', 'c="2\u0001"')],
    ['a CR in an attribute value', ok.replace('c="2"', 'c="2\r"')],
    ['an unpaired surrogate in an attribute value', ok.replace('c="2"', 'c="\uD800"')],
    ['a control character between elements', ok.replace('\n<B', '\u001F\n<B')],
    ['a CR between elements', ok.replace('\n</R>', '\r\n</R>')],
    ['U+FFFE in text', ok.replace('>x<', '>x\uFFFE<')],
    ['an unpaired low surrogate', ok.replace('>x<', '>\uDC00x<')],
    ['a surrogate pair cut by a tag', ok.replace('>x<', '>\uD83D<')],
    ['a control character in a leaf', ok.replace('</R>', '<C>y\u000B</C>\n</R>')],
    ['a CR in a leaf', ok.replace('</R>', '<C>y\r</C>\n</R>')],
    [']]> in a leaf', ok.replace('</R>', '<C>y]]>z</C>\n</R>')],
    ['mismatched leaf tags', ok.replace('</R>', '<C>y</D>\n</R>')],
    ['a leaf end tag with a longer name', ok.replace('</R>', '<C>y</Cc>\n</R>')],
    ['whitespace in a leaf end tag', ok.replace('</R>', '<C>y</C >\n</R>')],
    ['a byte-order mark', `\uFEFF${ok}`],
    ['an XML 1.1 declaration', ok.replace('1.0', '1.1')],
    ['another encoding', ok.replace('utf-8', 'ISO-8859-1')],
  ])('refuses %s', (_what, xml) => {
    expect(xml).not.toBe(ok);
    expect(canonicalizeDocument(xml)).toBeNull();
  });

  it('reads leaves with tabs, line feeds, non-ASCII and astral text as written', () => {
    const xml = ok.replace('</R>', '<C>a\tb\nñ\u00A0\uE000\uFFFD😀</C>\n<D></D>\n<E>&amp;></E>\n</R>');
    const doc = canonicalizeDocument(xml);
    expect(doc?.canonical).toBe(xmllintC14n(xml));
    expect(doc?.canonical).toContain('<C>a\tb\nñ\u00A0\uE000\uFFFD😀</C>\n<D></D>\n<E>&amp;&gt;</E>');
  });

  it('puts namespace declarations and attributes in C14N order', () => {
    const xml = '<R b="2" xmlns:z="urn:z" a="1" xmlns="urn:r"><B z="1" a="&#9;">x</B></R>';
    const doc = canonicalizeDocument(xml);
    expect(doc?.canonical).toBe('<R xmlns="urn:r" xmlns:z="urn:z" a="1" b="2"><B a="&#x9;" z="1">x</B></R>');
    expect(doc?.canonical).toBe(xmllintC14n(xml));
    expect(doc?.namespaces).toEqual([
      ['', 'urn:r'],
      ['z', 'urn:z'],
    ]);
  });
});
