// Signing keys and XAdES-EPES: .p12 reading (Hacienda's legacy PBE and modern AES), sealed
// storage, the identification in certificate subjects, the signature layout Hacienda accepts,
// and verification by xadesjs and, independently, by xmlsec1.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import type { Element } from '@xmldom/xmldom';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  open,
  openSigningMaterial,
  seal,
  sealSigningMaterial,
  SecretBoxError,
} from '../hacienda/secret-box.ts';
import { createSigner } from '../hacienda/signer.ts';
import type { XadesSigner } from '../hacienda/signer.ts';
import {
  assertCertificateCurrent,
  certificateBelongsTo,
  certificateIdentification,
  certificateInfo,
  normalizeIdentificationNumber,
  parseSubjectSerialNumber,
  readP12,
  SigningKeyError,
} from '../hacienda/signing-key.ts';
import { createTestCertificate, testCaCertificate } from '../hacienda/test-certificates.ts';
import type { TestCertificate } from '../hacienda/test-certificates.ts';
import { verifyXadesSignature } from '../hacienda/verify.ts';
import { XmlDocumentError } from '../hacienda/xades-env.ts';
import { verifyManyWithXmlsec, verifyWithXmlsec } from './helpers/xmlsec.ts';

const NS_DS = 'http://www.w3.org/2000/09/xmldsig#';
const NS_XADES = 'http://uri.etsi.org/01903/v1.3.2#';
const POLICY_URL =
  'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/Resoluci%C3%B3n_General_sobre_disposiciones_t%C3%A9cnicas_comprobantes_electr%C3%B3nicos_para_efectos_tributarios.pdf';

/** A small FacturaElectronica-like document: namespaces, accents, entities, odd spacing. */
const FACTURA = `<?xml version="1.0" encoding="utf-8"?>
<FacturaElectronica xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/facturaElectronica" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <Clave>50621112600010234056700100001010000000001100000001</Clave>
  <ProveedorSistemas>102340567</ProveedorSistemas>
  <CodigoActividadEmisor>620100</CodigoActividadEmisor>
  <NumeroConsecutivo>00100001010000000001</NumeroConsecutivo>
  <FechaEmision>2026-11-21T12:30:00-06:00</FechaEmision>
  <Emisor>
    <Nombre>José Ñandú Pérez &amp; Cía</Nombre>
    <Identificacion><Tipo>01</Tipo><Numero>102340567</Numero></Identificacion>
    <CorreoElectronico>jose@example.cr</CorreoElectronico>
  </Emisor>
  <DetalleServicio>
    <LineaDetalle>
      <NumeroLinea>1</NumeroLinea>
      <Detalle   unidad='Sp'>Consultoría &lt;software&gt;</Detalle>
      <MontoTotalLinea>11300.00000</MontoTotalLinea>
    </LineaDetalle>
  </DetalleServicio>
  <ResumenFactura>
    <TotalComprobante>11300.00000</TotalComprobante>
  </ResumenFactura>
</FacturaElectronica>
`;

const SIGNING_TIME = new Date('2026-11-21T18:30:05Z');

let fisica: TestCertificate;
let legacyP12: TestCertificate;
let modernP12: TestCertificate;
let signer: XadesSigner;
let signed: string;

beforeAll(async () => {
  [fisica, legacyP12, modernP12] = await Promise.all([
    createTestCertificate({ idType: '01', idNumber: '102340567', name: 'JOSE NANDU PEREZ SOTO' }),
    createTestCertificate({
      idType: '02',
      idNumber: '3101123456',
      name: 'EMPRESA DEMO SOCIEDAD ANONIMA',
      pin: 'Cl4ve-Compleja!',
      pbe: 'legacy',
    }),
    createTestCertificate({
      idType: '02',
      idNumber: '3101123456',
      name: 'EMPRESA DEMO SOCIEDAD ANONIMA',
      pin: '4321',
      pbe: 'modern',
    }),
  ]);
  signer = await createSigner(fisica.material);
  signed = await signer.sign(FACTURA, { signingTime: SIGNING_TIME });
});

function tmp(): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'signing-test-'));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

function signingKeyErrorCode(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof SigningKeyError ? err.code : `unexpected: ${String(err)}`;
  }
}

describe('readP12', () => {
  it('opens a legacy RC2-40/3DES .p12 (as Hacienda issues them) that OpenSSL 3 refuses', () => {
    const material = readP12(legacyP12.p12, 'Cl4ve-Compleja!');
    expect(material.privateKeyPkcs8.equals(legacyP12.material.privateKeyPkcs8)).toBe(true);
    expect(material.certificateChain).toHaveLength(2);
    expect(material.certificateChain[0]!.equals(legacyP12.material.certificateChain[0]!)).toBe(true);

    // The same file with the right PIN: OpenSSL 3 fails on the RC2-40 certificate bag.
    const t = tmp();
    try {
      const file = join(t.dir, 'legacy.p12');
      writeFileSync(file, legacyP12.p12);
      const run = spawnSync('openssl', [
        'pkcs12',
        '-in',
        file,
        '-info',
        '-noout',
        '-passin',
        'pass:Cl4ve-Compleja!',
      ]);
      expect(run.status).not.toBe(0);
      expect(run.stderr.toString()).toMatch(/RC2-40-CBC/);
    } finally {
      t.done();
    }
  });

  it('opens a modern PBES2/AES-256 .p12 and one written by OpenSSL 3', () => {
    const material = readP12(modernP12.p12, '4321');
    expect(material.privateKeyPkcs8.equals(modernP12.material.privateKeyPkcs8)).toBe(true);
    expect(material.certificateChain[0]!.equals(modernP12.material.certificateChain[0]!)).toBe(true);

    const t = tmp();
    try {
      const key = join(t.dir, 'k.pem');
      const cert = join(t.dir, 'c.pem');
      const p12 = join(t.dir, 'o.p12');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-subj',
          '/serialNumber=CPJ-3-101-123456/CN=OPENSSL',
          '-days',
          '2',
        ],
        { stdio: 'ignore' },
      );
      execFileSync(
        'openssl',
        ['pkcs12', '-export', '-inkey', key, '-in', cert, '-out', p12, '-passout', 'pass:0000'],
        { stdio: 'ignore' },
      );
      const fromOpenssl = readP12(readFileSync(p12), '0000');
      expect(certificateIdentification(fromOpenssl.certificateChain[0]!)).toEqual({
        idType: '02',
        idNumber: '3101123456',
      });
    } finally {
      t.done();
    }
  });

  it('reports a wrong PIN as wrong_pin, for both encodings', () => {
    expect(signingKeyErrorCode(() => readP12(legacyP12.p12, '0000'))).toBe('wrong_pin');
    expect(signingKeyErrorCode(() => readP12(modernP12.p12, '0000'))).toBe('wrong_pin');
  });

  it('reports files that are not .p12, have no key or a non-RSA key', () => {
    expect(signingKeyErrorCode(() => readP12(randomBytes(200), '1234'))).toBe('invalid_p12');
    const t = tmp();
    try {
      const ecKey = join(t.dir, 'ec.pem');
      const ecCert = join(t.dir, 'ec.crt');
      const ecP12 = join(t.dir, 'ec.p12');
      const certOnly = join(t.dir, 'cert-only.p12');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          ecKey,
          '-out',
          ecCert,
          '-subj',
          '/CN=EC',
          '-days',
          '2',
        ],
        { stdio: 'ignore' },
      );
      execFileSync(
        'openssl',
        ['pkcs12', '-export', '-inkey', ecKey, '-in', ecCert, '-out', ecP12, '-passout', 'pass:1234'],
        { stdio: 'ignore' },
      );
      execFileSync(
        'openssl',
        ['pkcs12', '-export', '-nokeys', '-in', ecCert, '-out', certOnly, '-passout', 'pass:1234'],
        { stdio: 'ignore' },
      );
      expect(signingKeyErrorCode(() => readP12(readFileSync(ecP12), '1234'))).toBe('unsupported_key');
      expect(signingKeyErrorCode(() => readP12(readFileSync(certOnly), '1234'))).toBe('no_private_key');
    } finally {
      t.done();
    }
  });

  it('gives the expiry of an expired certificate and refuses it when asked', async () => {
    const notAfter = new Date('2025-03-01T00:00:00Z');
    const old = await createTestCertificate({
      idType: '01',
      idNumber: '204560789',
      name: 'ANA VIEJA MORA',
      notAfter,
      pin: '1111',
    });
    const material = readP12(old.p12, '1111');
    const info = certificateInfo(material.certificateChain[0]!);
    expect(info.notAfter.toISOString()).toBe(notAfter.toISOString());
    expect(signingKeyErrorCode(() => assertCertificateCurrent(material.certificateChain[0]!))).toBe(
      'certificate_expired',
    );
    expect(() =>
      assertCertificateCurrent(material.certificateChain[0]!, new Date('2025-01-01T00:00:00Z')),
    ).not.toThrow();
  });
});

describe('secret box', () => {
  const key = randomBytes(32);

  it('round-trips signing material and never repeats a ciphertext', () => {
    const sealed = sealSigningMaterial(key, fisica.material);
    const again = sealSigningMaterial(key, fisica.material);
    expect(sealed.equals(again)).toBe(false);
    expect(sealed[0]).toBe(1);
    const opened = openSigningMaterial(key, sealed);
    expect(opened.privateKeyPkcs8.equals(fisica.material.privateKeyPkcs8)).toBe(true);
    expect(opened.certificateChain.map((c) => c.toString('hex'))).toEqual(
      fisica.material.certificateChain.map((c) => c.toString('hex')),
    );
  });

  it('detects any changed byte, a wrong key and an unknown version', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 300 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (data, at, flip) => {
          const plaintext = Buffer.from(data);
          const sealed = seal(key, plaintext);
          expect(open(key, sealed).equals(plaintext)).toBe(true);
          const tampered = Buffer.from(sealed);
          const index = at % tampered.length;
          tampered[index] = tampered[index]! ^ flip;
          expect(() => open(key, tampered)).toThrow(SecretBoxError);
        },
      ),
      { numRuns: 200 },
    );
    const sealed = seal(key, Buffer.from('secreto'));
    expect(() => open(randomBytes(32), sealed)).toThrow(SecretBoxError);
    expect(() => open(key, sealed.subarray(0, 20))).toThrow(SecretBoxError);
    expect(() => seal(randomBytes(16), Buffer.from('x'))).toThrow(SecretBoxError);
  });
});

describe('certificate identification', () => {
  it.each([
    ['01', '102340567', 'CPF-01-0234-0567'],
    ['02', '3101123456', 'CPJ-3-101-123456'],
    ['02', '3102ABC123', 'CPJ-3-102-ABC123'],
    ['03', '155812345678', 'DIMEX-155812345678'],
    ['04', '4000123456', 'NITE-4000123456'],
  ])('type %s number %s is written as %s and read back', async (idType, idNumber, serial) => {
    const cert = await createTestCertificate({ idType, idNumber, name: 'TITULAR DE PRUEBA' });
    const der = cert.material.certificateChain[0]!;
    const info = certificateInfo(der);
    expect(info.subject).toContain(`serialNumber=${serial}`);
    expect(info.subject).toMatch(idType === '02' ? /O=PERSONA JURIDICA/ : /O=PERSONA FISICA/);
    expect(info.issuer).toMatch(/CA SIMULADA .* - SANDBOX/);
    expect(certificateIdentification(der)).toEqual({ idType, idNumber });
    expect(info.identification).toEqual({ idType, idNumber });
    expect(certificateBelongsTo(der, { idType, idNumber })).toBe(true);
    expect(
      certificateBelongsTo(der, { idType, idNumber: idNumber.replace(/.$/, (c) => (c === '9' ? '8' : '9')) }),
    ).toBe(false);
  });

  it('parses the spellings seen in Hacienda and BCCR certificates', () => {
    expect(parseSubjectSerialNumber('CPF-02-0860-0363')).toEqual({ idType: '01', idNumber: '208600363' });
    expect(parseSubjectSerialNumber('CPJ-3-101-408861')).toEqual({ idType: '02', idNumber: '3101408861' });
    expect(parseSubjectSerialNumber('cpj-3-a01-40886b')).toEqual({ idType: '02', idNumber: '3A0140886B' });
    expect(parseSubjectSerialNumber('DIMEX-155812345678')).toEqual({
      idType: '03',
      idNumber: '155812345678',
    });
    expect(parseSubjectSerialNumber('NITE-4000123456')).toEqual({ idType: '04', idNumber: '4000123456' });
    expect(parseSubjectSerialNumber('NUP-155812345678')).toEqual({ idType: null, idNumber: '155812345678' });
    expect(parseSubjectSerialNumber('---')).toBeNull();
  });

  it('matches the emisor after normalising prefixes, dashes and leading zeros', () => {
    const der = fisica.material.certificateChain[0]!;
    expect(certificateBelongsTo(der, { idType: '01', idNumber: '0102340567' })).toBe(true);
    expect(certificateBelongsTo(der, { idNumber: '1-0234-0567' })).toBe(true);
    expect(certificateBelongsTo(der, { idType: '02', idNumber: '102340567' })).toBe(false);
    expect(certificateBelongsTo(der, { idType: '01', idNumber: '102340568' })).toBe(false);
    expect(normalizeIdentificationNumber('CPF-01-0234-0567')).toBe(
      normalizeIdentificationNumber('102340567'),
    );
  });
});

function parse(xml: string): Element {
  return new DOMParser().parseFromString(xml, 'application/xml').documentElement as Element;
}

function childElements(e: Element | null): Element[] {
  const out: Element[] = [];
  for (let n = e?.firstChild ?? null; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

function one(root: Element, ns: string, name: string): Element {
  const list = root.getElementsByTagNameNS(ns, name);
  expect(list.length, `${name} count`).toBe(1);
  return list.item(0)!;
}

describe('XAdES-EPES signature layout', () => {
  it('appends ds:Signature as the root last child, leaving every input byte in place', () => {
    const close = FACTURA.lastIndexOf('</FacturaElectronica>');
    expect(signed.startsWith(FACTURA.slice(0, close))).toBe(true);
    expect(signed.endsWith(FACTURA.slice(close))).toBe(true);
    expect(signed.startsWith('<?xml version="1.0" encoding="utf-8"?>\n')).toBe(true);
    const root = parse(signed);
    const last = childElements(root).at(-1)!;
    expect(last.namespaceURI).toBe(NS_DS);
    expect(last.localName).toBe('Signature');
    expect(last.getAttribute('Id')).toMatch(/^Signature-[0-9a-f-]{36}$/);
    expect(childElements(last).map((e) => e.localName)).toEqual([
      'SignedInfo',
      'SignatureValue',
      'KeyInfo',
      'Object',
    ]);
  });

  it('keeps a document without XML declaration without one', async () => {
    const bare = FACTURA.replace(/^<\?xml[^>]*>\n/, '');
    const out = await signer.sign(bare);
    expect(out.startsWith('<FacturaElectronica ')).toBe(true);
    expect((await verifyXadesSignature(out)).valid).toBe(true);
  });

  it('has the references, algorithms and properties Hacienda expects', () => {
    const root = parse(signed);
    const signature = one(root, NS_DS, 'Signature');
    const signatureId = signature.getAttribute('Id')!;
    const signedInfo = one(root, NS_DS, 'SignedInfo');
    expect(one(root, NS_DS, 'CanonicalizationMethod').getAttribute('Algorithm')).toBe(
      'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
    );
    expect(one(root, NS_DS, 'SignatureMethod').getAttribute('Algorithm')).toBe(
      'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    );

    const refs = childElements(signedInfo).filter((e) => e.localName === 'Reference');
    expect(refs).toHaveLength(3);
    const [docRef, keyInfoRef, propsRef] = refs as [Element, Element, Element];
    expect(docRef.getAttribute('URI')).toBe('');
    expect(docRef.getAttribute('Id')).toMatch(/^Reference-[0-9a-f-]{36}$/);
    const transforms = docRef.getElementsByTagNameNS(NS_DS, 'Transform');
    expect(transforms.length).toBe(1);
    expect(transforms.item(0)!.getAttribute('Algorithm')).toBe(
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
    );
    const keyInfo = one(root, NS_DS, 'KeyInfo');
    expect(keyInfoRef.getAttribute('URI')).toBe(`#${keyInfo.getAttribute('Id')}`);
    expect(keyInfo.getAttribute('Id')).toBe(`KeyInfoId-${signatureId}`);
    const signedProperties = one(root, NS_XADES, 'SignedProperties');
    expect(propsRef.getAttribute('Type')).toBe('http://uri.etsi.org/01903#SignedProperties');
    expect(propsRef.getAttribute('URI')).toBe(`#${signedProperties.getAttribute('Id')}`);
    for (const ref of refs) {
      expect(ref.getElementsByTagNameNS(NS_DS, 'DigestMethod').item(0)!.getAttribute('Algorithm')).toBe(
        'http://www.w3.org/2001/04/xmlenc#sha256',
      );
    }

    const cert = fisica.material.certificateChain[0]!;
    expect(one(keyInfo, NS_DS, 'X509Certificate').textContent).toBe(cert.toString('base64'));
    expect(keyInfo.getElementsByTagNameNS(NS_DS, 'RSAKeyValue').length).toBe(1);

    expect(one(root, NS_XADES, 'QualifyingProperties').getAttribute('Target')).toBe(`#${signatureId}`);
    expect(one(root, NS_XADES, 'SigningTime').textContent).toBe('2026-11-21T12:30:05-06:00');
    const certDigest = one(root, NS_XADES, 'CertDigest');
    expect(one(certDigest, NS_DS, 'DigestValue').textContent).toBe(
      createHash('sha256').update(cert).digest('base64'),
    );
    const info = certificateInfo(cert);
    expect(one(root, NS_DS, 'X509SerialNumber').textContent).toBe(info.serialNumberDecimal);
    expect(one(root, NS_DS, 'X509IssuerName').textContent).toBe(info.issuer);
    expect(one(root, NS_XADES, 'Identifier').textContent).toBe(POLICY_URL);
    const policyHash = one(root, NS_XADES, 'SigPolicyHash');
    expect(one(policyHash, NS_DS, 'DigestMethod').getAttribute('Algorithm')).toBe(
      'http://www.w3.org/2001/04/xmlenc#sha256',
    );
    expect(one(policyHash, NS_DS, 'DigestValue').textContent).toBe(
      'DWxin1xWOeI8OuWQXazh4VjLWAaCLAA954em7DMh0h8=',
    );
    expect(one(root, NS_XADES, 'ClaimedRole').textContent).toBe('Emisor');
    const format = one(root, NS_XADES, 'DataObjectFormat');
    expect(format.getAttribute('ObjectReference')).toBe(`#${docRef.getAttribute('Id')}`);
    expect(one(format, NS_XADES, 'MimeType').textContent).toBe('text/xml');
    expect(one(format, NS_XADES, 'Encoding').textContent).toBe('UTF-8');
  });

  it('refuses documents it cannot sign faithfully', async () => {
    await expect(signer.sign('<FacturaElectronica/>')).rejects.toThrow(XmlDocumentError);
    await expect(signer.sign('<a><b></a>')).rejects.toThrow(XmlDocumentError);
    await expect(signer.sign('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>')).rejects.toThrow(XmlDocumentError);
    await expect(signer.sign('<?xml-stylesheet href="a.xsl"?><a>1</a>')).rejects.toThrow(XmlDocumentError);
    await expect(signer.sign(signed)).rejects.toThrow('already signed');
    // xadesjs would not carry xml:lang into the KeyInfo/SignedProperties digests (xmlsec1 does).
    await expect(signer.sign('<a xml:lang="es"><b>1</b></a>')).rejects.toThrow(/xml:lang/);
  });
});

describe('verification', () => {
  it('accepts the signature with xadesjs and names the signing certificate', async () => {
    const result = await verifyXadesSignature(signed);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.signingCertificate?.equals(fisica.material.certificateChain[0]!)).toBe(true);
    expect(result.signingTime?.toISOString()).toBe(SIGNING_TIME.toISOString());
    expect(certificateBelongsTo(result.signingCertificate!, { idType: '01', idNumber: '102340567' })).toBe(
      true,
    );
    expect(certificateBelongsTo(result.signingCertificate!, { idType: '02', idNumber: '3101123456' })).toBe(
      false,
    );
  });

  it('accepts the signature with xmlsec1, trusting only the sandbox CA', async () => {
    const ok = await verifyWithXmlsec(signed);
    expect(ok.output).toMatch(/SignedInfo References \(ok\/all\): 3\/3/);
    expect(ok.valid).toBe(true);
    const otherRoot = modernP12.material.certificateChain[0]!;
    const untrusted = await verifyWithXmlsec(signed, {
      trustedPem: `-----BEGIN CERTIFICATE-----\n${otherRoot.toString('base64')}\n-----END CERTIFICATE-----\n`,
    });
    expect(untrusted.valid).toBe(false);
  });

  const tamperings: [string, (xml: string) => string][] = [
    [
      'a text node of the document',
      (xml) => xml.replace('<TotalComprobante>11300.00000', '<TotalComprobante>11300.00001'),
    ],
    ['an attribute of the document', (xml) => xml.replace("unidad='Sp'", "unidad='Sq'")],
    ['the SigningTime in SignedProperties', (xml) => xml.replace('12:30:05-06:00', '12:30:06-06:00')],
    ['the ClaimedRole in SignedProperties', (xml) => xml.replace('>Emisor<', '>Emisos<')],
    ['the KeyInfo', (xml) => xml.replace('<ds:Exponent>AQAB', '<ds:Exponent>AQAC')],
  ];

  it.each(tamperings)('rejects a one-byte change in %s with both verifiers', async (_what, change) => {
    const tampered = change(signed);
    expect(tampered).not.toBe(signed);
    expect(Buffer.byteLength(tampered)).toBe(Buffer.byteLength(signed));
    const result = await verifyXadesSignature(tampered);
    expect(result.valid).toBe(false);
    expect(result.errors.join('\n')).toMatch(/digest|KeyValue/i);
    expect((await verifyWithXmlsec(tampered)).valid).toBe(false);
  });

  it('verifies with the certificate key only, never with a key the document brings', async () => {
    // A signer holding another key but presenting the emisor's certificate (and so its KeyValue).
    const impostor = await createSigner({
      privateKeyPkcs8: modernP12.material.privateKeyPkcs8,
      certificateChain: fisica.material.certificateChain,
    });
    const forged = await impostor.sign(FACTURA);
    const result = await verifyXadesSignature(forged);
    expect(result.valid).toBe(false);
    expect(result.errors).toContain('The signature value does not verify with the signing certificate');
    expect((await verifyWithXmlsec(forged)).valid).toBe(false);
  });

  it('reports unsigned, doubly signed and malformed documents without throwing', async () => {
    expect((await verifyXadesSignature(FACTURA)).errors).toEqual(['The document is not signed']);
    const sig = signed.slice(signed.indexOf('<ds:Signature '), signed.lastIndexOf('</FacturaElectronica>'));
    const doubled = signed.replace('</FacturaElectronica>', `${sig}</FacturaElectronica>`);
    expect((await verifyXadesSignature(doubled)).valid).toBe(false);
    const broken = await verifyXadesSignature(signed.slice(0, -30));
    expect(broken.valid).toBe(false);
    expect(broken.signingCertificate).toBeNull();
  });

  it('verifies many documents in one xmlsec1 run and pinpoints the bad one', async () => {
    const docs = await Promise.all(
      ['1', '2', '3', '4'].map((n) =>
        signer.sign(FACTURA.replace('0000000001</NumeroConsecutivo>', `000000000${n}</NumeroConsecutivo>`)),
      ),
    );
    docs[2] = docs[2]!.replace('<NumeroLinea>1', '<NumeroLinea>2');
    const results = await verifyManyWithXmlsec(docs);
    expect(results.map((r) => r.valid)).toEqual([true, true, false, true]);
    expect(results[2]!.output).toMatch(/FAIL|digest/i);
  });

  it('agrees with xmlsec1 on generated documents (entities, CR, tabs, prefixes, non-ASCII)', async () => {
    const char = fc.constantFrom(
      'a',
      'Z',
      ' ',
      '\t',
      '\n',
      '\r',
      '&',
      '<',
      '>',
      '"',
      "'",
      'é',
      'Ñ',
      '😀',
      '\u00a0',
      ']]>',
    );
    const text = fc.array(char, { maxLength: 8 }).map((a) => a.join(''));
    const escape = (t: string, attribute: boolean): string =>
      t
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, attribute ? '&quot;' : '"')
        .replace(/\r/g, '&#13;');
    interface Tree {
      name: string;
      attributes: [string, string][];
      children: (Tree | string)[];
    }
    const tree = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.record({
        name: fc.constantFrom('A', 'Linea', 'x-y', 'p:Q'),
        attributes: fc.uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'p:d'), text), {
          maxLength: 3,
          selector: (t) => t[0],
        }),
        children: fc.array(fc.oneof({ maxDepth: 3 }, text, tie('tree')), { maxLength: 4 }),
      }),
    })).tree;
    const write = (t: Tree | string): string =>
      typeof t === 'string'
        ? escape(t, false)
        : `<${t.name}${t.attributes.map(([k, v]) => ` ${k}="${escape(v, true)}"`).join('')}>${t.children.map(write).join('')}</${t.name}>`;
    const documents = fc
      .sample(tree, { numRuns: 40 })
      .map(
        (t) =>
          `<?xml version="1.0" encoding="UTF-8"?>\n<Root xmlns="urn:r" xmlns:p="urn:p">${write(t)}</Root>\n`,
      );
    const signedDocuments: string[] = [];
    for (const doc of documents) signedDocuments.push(await signer.sign(doc));
    for (const doc of signedDocuments) expect((await verifyXadesSignature(doc)).errors).toEqual([]);
    const results = await verifyManyWithXmlsec(signedDocuments);
    expect(results.filter((r) => !r.valid).map((r) => r.output)).toEqual([]);
  });

  it('trusts the exported test CA certificate as a PEM', async () => {
    const { pem, der } = await testCaCertificate();
    expect(pem).toContain('-----BEGIN CERTIFICATE-----');
    expect(certificateInfo(der).subject).toMatch(/^CN=CA SIMULADA PERSONAS - SANDBOX/);
  });
});
