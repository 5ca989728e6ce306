// Signatures over text XML parsers treat differently. Comprobantes are XML 1.0, where U+0085,
// U+2028 and U+2029 are ordinary characters; an XML 1.1 reading (xmldom's default) turns them
// into line feeds, and a verifier or signer built on it digests other text than xmlsec1 and
// Hacienda. Generated documents carry hostile text in every free-text field the API accepts
// (emisor and receptor names, addresses, line details, commercial units, discount natures,
// CondicionVentaOtros, MedioPagoOtros, Razón, Otros and its `codigo` attribute): those three
// characters, CR, CRLF, LF, tabs, NBSP, astral characters and XML specials. Each is signed by the
// fast path and by the xadesjs path, with a test certificate and with one whose issuer name holds
// a CR, and checked by xmlsec1, verify.ts (xadesjs), the public verifier (fast path + xadesjs) and
// the simulator's signature check: every one accepts every document, and every one rejects each
// tampered copy (the XML 1.1 rewriting of those characters, CR turned into LF, one hostile
// character replaced).
// @peculiar/x509 resolves its services through tsyringe, which needs Reflect metadata first.
import 'reflect-metadata';
import { createHash, createPrivateKey, sign as rsaSign, webcrypto, X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifySignature, fastVerify } from '../hacienda/fast-verify.ts';
import { createSigner } from '../hacienda/signer.ts';
import type { SignatureIds, XadesSigner } from '../hacienda/signer.ts';
import type { SigningMaterial } from '../hacienda/signing-key.ts';
import { certificateInfo, formatCertificateSerialNumber } from '../hacienda/signing-key.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { XmlDocumentError } from '../hacienda/xades-env.ts';
import {
  apexNamespaces,
  keyInfo,
  signatureBlock,
  signedInfo,
  signedProperties,
} from '../hacienda/xades-template.ts';
import type { SignatureFields } from '../hacienda/xades-template.ts';
import { canonicalizeDocument } from '../hacienda/canonical-document.ts';
import { buildFacturaXml } from '../hacienda/xml/factura.ts';
import type { Emisor, FacturaDocument } from '../hacienda/xml/types.ts';
import { checkSignature } from '../simulator/checks/signature.ts';
import { testFactura } from './helpers/documents.ts';
import { EMISORES, facturaOf, invoiceArb, totalsOf } from './helpers/invoice-arbitraries.ts';
import type { InvoiceCase } from './helpers/invoice-arbitraries.ts';
import { verifyManyWithXmlsec } from './helpers/xmlsec.ts';

const RUNS = 60;
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
const XML11_LINE_ENDS = /[\u0085\u2028\u2029]/;

/** Text units: the XML 1.1 line ends, every whitespace the builder escapes, NBSP, astral, specials. */
const hostile = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .array(
      fc.constantFrom(
        'a',
        'Ñ',
        ' ',
        '\u2028',
        '\u2029',
        '\u0085',
        '\r',
        '\r\n',
        '\n',
        '\t',
        '\u00a0',
        '𝄞',
        '🇨🇷',
        '&',
        '<',
        '>',
        '"',
        "'",
        ']]>',
      ),
      { minLength: min, maxLength: max },
    )
    // Every document carries at least one of the characters the bug was about.
    .map((units) => `x${units.join('')}\u2028y`);

interface HostileTexts {
  emisorName: string;
  commercialName: string;
  otrasSenas: string;
  barrio: string;
  receptorName: string;
  receptorSenas: string;
  details: string[];
  commercialUnit: string;
  nature: string;
  condicionOtros: string;
  medioOtros: string;
  razon: string;
  otroTexto: string;
  otroCodigo: string;
}

const hostileArb: fc.Arbitrary<HostileTexts> = fc.record({
  emisorName: hostile(3, 40),
  commercialName: hostile(3, 30),
  otrasSenas: hostile(5, 60),
  barrio: hostile(3, 20),
  receptorName: hostile(3, 40),
  receptorSenas: hostile(3, 60),
  details: fc.array(hostile(1, 40), { minLength: 20, maxLength: 20 }),
  commercialUnit: hostile(0, 8),
  nature: hostile(1, 30),
  condicionOtros: hostile(3, 40),
  medioOtros: hostile(1, 40),
  razon: hostile(1, 60),
  otroTexto: hostile(0, 80),
  otroCodigo: hostile(0, 20),
});

function hostileFactura(c: InvoiceCase, h: HostileTexts, index: number): FacturaDocument {
  const base = facturaOf(c, index, totalsOf(c));
  const emisor: Emisor = {
    ...base.emisor,
    name: h.emisorName,
    commercialName: h.commercialName,
    ubicacion: { ...base.emisor.ubicacion, otrasSenas: h.otrasSenas, barrio: h.barrio },
  };
  return {
    ...base,
    emisor,
    receptor: {
      ...base.receptor,
      name: h.receptorName,
      ubicacion: { provincia: '1', canton: '01', distrito: '01', otrasSenas: h.receptorSenas },
    },
    condicionVenta: '99',
    condicionVentaOtros: h.condicionOtros,
    plazoCredito: undefined,
    mediosPago: [{ type: '99', other: h.medioOtros }],
    lines: base.lines.map((l, i) => ({
      ...l,
      description: h.details[i % h.details.length]!,
      commercialUnit: h.commercialUnit || undefined,
      discounts: (l.discounts ?? []).map((d) => ({ ...d, nature: h.nature })),
    })),
    referencias: [
      {
        docType: '01',
        number: base.clave,
        issuedAt: new Date('2026-11-02T12:00:00Z'),
        code: '04',
        reason: h.razon,
      },
    ],
    otros: [{ text: h.otroTexto, code: h.otroCodigo }],
  };
}

interface Signer {
  name: string;
  emisorIndex: number;
  trustedPem: string | undefined;
  fast: XadesSigner;
  xadesjs: XadesSigner;
}

let signers: Signer[];

/** A CA and a certificate issued by it, laid out like Hacienda's, with names of our choosing. */
async function certificateUnder(
  caName: string,
  emisor: Emisor,
): Promise<{ material: SigningMaterial; caPem: string }> {
  x509.cryptoProvider.set(webcrypto as never);
  const alg = {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  };
  const caKeys = (await webcrypto.subtle.generateKey(alg, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const caSubject = new x509.Name([{ CN: [caName] }, { O: ['Pruebas'] }, { C: ['CR'] }]);
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: caSubject,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 365 * 86400_000),
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '0a1b2c',
    subject: new x509.Name([
      { CN: [emisor.name] },
      { '2.5.4.5': [formatCertificateSerialNumber(emisor.idType, emisor.idNumber)] },
      { C: ['CR'] },
    ]),
    issuer: ca.subjectName,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 365 * 86400_000),
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
    extensions: [
      await x509.AuthorityKeyIdentifierExtension.create(ca),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation),
    ],
  });
  return {
    material: {
      privateKeyPkcs8: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
      certificateChain: [Buffer.from(leaf.rawData), Buffer.from(ca.rawData)],
    },
    caPem: ca.toString('pem'),
  };
}

let crIssuer: { material: SigningMaterial; caPem: string };

beforeAll(async () => {
  const standard = await Promise.all(
    EMISORES.map((e) => createTestCertificate({ idType: e.idType, idNumber: e.idNumber, name: e.name })),
  );
  crIssuer = await certificateUnder('CA Prueba\rCon retorno & <marcas>', EMISORES[0]!);
  expect(certificateInfo(crIssuer.material.certificateChain[0]!).issuer).toContain('\r');
  const both = async (name: string, emisorIndex: number, material: SigningMaterial, trustedPem?: string) => ({
    name,
    emisorIndex,
    trustedPem,
    fast: await createSigner(material),
    xadesjs: await createSigner(material, { engine: 'xadesjs' }),
  });
  signers = [
    await both('test CA, jurídica', 0, standard[0]!.material),
    await both('test CA, física', 1, standard[1]!.material),
    await both('issuer name with a CR', 0, crIssuer.material, crIssuer.caPem),
  ];
});

interface Signed {
  xml: string;
  signer: Signer;
  engine: 'fast' | 'xadesjs';
  index: number;
}

/** Every verifier's verdict on one document: true when it accepts it. */
async function verdicts(docs: Signed[]) {
  const xmlsec: boolean[] = new Array<boolean>(docs.length);
  for (const s of signers) {
    const mine = docs.flatMap((d, i) => (d.signer === s ? [i] : []));
    const results = await verifyManyWithXmlsec(
      mine.map((i) => docs[i]!.xml),
      s.trustedPem ? { trustedPem: s.trustedPem } : {},
    );
    mine.forEach((i, k) => (xmlsec[i] = results[k]!.valid));
  }
  return Promise.all(
    docs.map(async (d, i) => {
      const emisor = EMISORES[d.signer.emisorIndex]!;
      const [xades, pub, sim] = await Promise.all([
        verifyXadesSignature(d.xml),
        verifySignature(d.xml),
        checkSignature(d.xml, { tipo: emisor.idType, numero: emisor.idNumber }),
      ]);
      return {
        index: d.index,
        signer: d.signer.name,
        engine: d.engine,
        xmlsec: xmlsec[i]!,
        verify: xades.valid,
        public: pub.valid,
        simulator: sim.length === 0,
        errors: xades.errors.slice(0, 1),
      };
    }),
  );
}

/** Copies that differ from the signed text only in characters parsers treat differently. */
function tamper(xml: string, k: number): string[] {
  const end = xml.indexOf('<ds:Signature ');
  const body = xml.slice(0, end);
  const rest = xml.slice(end);
  const out: string[] = [];
  // What an XML 1.1 parser reads: line feeds in text, spaces in attribute values.
  const xml11 = body
    .replace(/="([^"]*)"/g, (m, v: string) => `="${v.replace(/[\u0085\u2028\u2029]/g, ' ')}"`)
    .replace(/[\u0085\u2028\u2029]/g, '\n');
  if (xml11 !== body) out.push(xml11 + rest);
  // A CR turned into a line feed.
  if (body.includes('&#13;')) out.push(body.replace('&#13;', '&#10;') + rest);
  // One hostile character replaced by another, at a place that depends on k.
  const spots = [...body.matchAll(/[\u0085\u2028\u2029\u00a0\t]/g)].map((m) => m.index);
  if (spots.length > 0) {
    const at = spots[k % spots.length]!;
    const swap = body[at] === '\u2028' ? '\u2029' : '\u2028';
    out.push(body.slice(0, at) + swap + body.slice(at + 1) + rest);
  }
  return out;
}

describe(`${RUNS} documents with hostile text`, () => {
  it('are accepted by xmlsec1, verify.ts, the public verifier and the simulator whichever path signed them, and tampered copies by none', async () => {
    const cases = fc.sample(fc.tuple(invoiceArb, hostileArb), { numRuns: RUNS, seed: SEED });
    const signed: Signed[] = [];
    for (const [i, [c, h]] of cases.entries()) {
      const signer = signers[i % signers.length]!;
      const xml = buildFacturaXml(hostileFactura({ ...c, emisorIndex: signer.emisorIndex }, h, i));
      expect(XML11_LINE_ENDS.test(xml)).toBe(true);
      for (const engine of ['fast', 'xadesjs'] as const) {
        signed.push({ xml: await signer[engine].sign(xml), signer, engine, index: i });
      }
    }
    const accepted = await verdicts(signed);
    const rejections = accepted.filter((v) => !(v.xmlsec && v.verify && v.public && v.simulator));
    expect(rejections.map((r) => ({ ...r, seed: SEED }))).toEqual([]);

    // One tampered copy per document, the kind of change rotating.
    const tampered: Signed[] = signed.flatMap((d, k) => {
      const copies = tamper(d.xml, k);
      return copies.length > 0 ? [{ ...d, xml: copies[k % copies.length]! }] : [];
    });
    expect(tampered.length).toBe(signed.length);
    const after = await verdicts(tampered);
    const acceptedTampered = after.filter((v) => v.xmlsec || v.verify || v.public || v.simulator);
    expect(acceptedTampered.map((r) => ({ ...r, seed: SEED }))).toEqual([]);

    // The fast path reads every document the builder writes, the CR issuer included.
    const fastDeclined = signed.filter((d) => d.engine === 'fast' && fastVerify(d.xml).outcome !== 'valid');
    expect(fastDeclined.map((d) => ({ index: d.index, signer: d.signer.name }))).toEqual([]);
  }, 180_000);
});

describe('documents not written by the builder (the xadesjs fallback)', () => {
  it('signs text with CRLF line ends, literal whitespace in attributes, CDATA and comments so every verifier agrees', async () => {
    const base = buildFacturaXml(testFactura({ emisor: EMISORES[0]! }));
    const docs = [
      // (C14N drops the comment; the line detail carries the characters that count.)
      base
        .replace(/\n/g, '\r\n')
        .replace('<Clave>', '<!-- nota\u2028con\u0085separadores -->\r\n<Clave>')
        .replace('<Detalle>', '<Detalle>Uno\u2028dos\u0085\r\n'),
      base.replace(
        '<DetalleServicio>',
        '<DetalleServicio xmlns:x="urn:x" x:nota="a\tb\nc\r\nd\u2028e\u0085f">',
      ),
      base.replace(/<Detalle>[^<]*</, '<Detalle><![CDATA[Línea\u2028con\rCR & <marcas>\u2029]]><'),
      base
        .replace('<?xml version="1.0" encoding="utf-8"?>', "<?xml version='1.0' encoding='UTF-8'?>")
        .replace(/<OtrasSenas>[^<]*</, '<OtrasSenas >Tabs\there\u00a0y\u2028𝄞<'),
    ];
    const signer = signers[0]!;
    const signed: Signed[] = [];
    for (const [index, xml] of docs.entries()) {
      expect(canonicalizeDocument(xml), `document ${index} is not in the builder's shape`).toBeNull();
      signed.push({ xml: await signer.fast.sign(xml), signer, engine: 'fast', index });
    }
    const accepted = await verdicts(signed);
    expect(accepted.filter((v) => !(v.xmlsec && v.verify && v.public && v.simulator))).toEqual([]);
    const tampered = signed.map((d) => {
      const end = d.xml.indexOf('<ds:Signature ');
      const body = d.xml
        .slice(0, end)
        .replace(/\u2028/g, '\n')
        .replace(/\u0085/g, ' ');
      return { ...d, xml: body + d.xml.slice(end) };
    });
    expect(tampered.every((t, i) => t.xml !== signed[i]!.xml)).toBe(true);
    const rejected = await verdicts(tampered);
    expect(rejected.filter((v) => v.xmlsec || v.verify || v.public || v.simulator)).toEqual([]);
  });
});

describe('issuer names', () => {
  it('refuses to sign with a certificate whose issuer name XML 1.0 cannot carry, on both paths', async () => {
    const bad = await certificateUnder('CA Prueba\u0001Control', EMISORES[0]!);
    for (const engine of ['fast', 'xadesjs'] as const) {
      const signer = await createSigner(bad.material, { engine });
      await expect(signer.sign(buildFacturaXml(testFactura()))).rejects.toThrow(XmlDocumentError);
    }
  });

  it('a block with a literal CR in X509IssuerName is not read by the fast path; every verifier rejects it', async () => {
    // Signed as if a parser kept the CR: the digests cover a literal CR, which an XML 1.0 parser
    // reads as LF, so the signature is wrong for every verifier that parses the document.
    const material = crIssuer.material;
    const xml = buildFacturaXml(testFactura());
    const doc = canonicalizeDocument(xml)!;
    const der = material.certificateChain[0]!;
    const info = certificateInfo(der);
    const jwk = new X509Certificate(der).publicKey.export({ format: 'jwk' });
    const ids: SignatureIds = {
      signature: '0badc0de-0000-4000-8000-00000000cafe',
      reference: 'feedf00d-0000-4000-8000-00000000cafe',
    };
    const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('base64');
    const f: SignatureFields = {
      signatureUuid: ids.signature,
      referenceUuid: ids.reference,
      documentDigest: sha(doc.canonical),
      keyInfoDigest: '',
      signedPropertiesDigest: '',
      signatureValue: '',
      certificate: der.toString('base64'),
      modulus: Buffer.from(jwk.n!, 'base64url').toString('base64'),
      exponent: Buffer.from(jwk.e!, 'base64url').toString('base64'),
      signingTime: '2026-11-21T10:00:00-06:00',
      certificateDigest: sha(der),
      issuerName: info.issuer,
      serialNumber: info.serialNumberDecimal,
    };
    const literalCr = (s: string) => s.replace(/&#xD;|&#13;/g, '\r');
    const dsApex = apexNamespaces(doc.namespaces, false);
    f.keyInfoDigest = sha(keyInfo(f, dsApex));
    f.signedPropertiesDigest = sha(literalCr(signedProperties(f, apexNamespaces(doc.namespaces, true))));
    const key = createPrivateKey({
      key: material.privateKeyPkcs8,
      format: 'der',
      type: 'pkcs8',
    });
    f.signatureValue = rsaSign('sha256', Buffer.from(signedInfo(f, dsApex)), key).toString('base64');
    const forged =
      xml.slice(0, doc.rootCloseStart) + literalCr(signatureBlock(f)) + xml.slice(doc.rootCloseStart);
    expect(forged).toContain('\r');

    expect(fastVerify(forged).outcome).toBe('unrecognised');
    const [xmlsec] = await verifyManyWithXmlsec([forged], { trustedPem: crIssuer.caPem });
    expect(xmlsec!.valid).toBe(false);
    expect((await verifyXadesSignature(forged)).valid).toBe(false);
    expect((await verifySignature(forged)).valid).toBe(false);
  });
});
