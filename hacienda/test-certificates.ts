// Sandbox signing keys: a clearly marked test CA ("CA SIMULADA … - SANDBOX") that issues RSA-2048
// certificates laid out like Hacienda's llaves criptográficas (see signing-key.ts for the subject
// format), packaged as PIN-protected .p12 files. Sandbox companies, the simulator and the tests
// use these; nothing here is trusted by the real Hacienda.
//
// The CA is the fixed sandbox CA of sandbox-ca.ts (the one the simulator trusts), so every
// process issues under the same root; useTestCa installs another one (generateTestCa makes a
// fresh one), e.g. for a test about untrusted issuers. Issuing a certificate costs one RSA key
// generation. The .p12 comes in two encodings: "modern" (PBES2/PBKDF2-SHA256/AES-256 for key and
// certificates, SHA-256 MAC, as OpenSSL 3 writes) and "legacy" (3DES key, RC2-40 certificates,
// SHA-1 MAC, as Hacienda's files are; OpenSSL 3 refuses these without its legacy provider).
// @peculiar/x509 resolves its services through tsyringe, which needs Reflect metadata loaded first.
import 'reflect-metadata';
import { createHash, randomInt, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import forge from 'node-forge';
import { SANDBOX_CA_CERTIFICATE_PEM, SANDBOX_CA_PRIVATE_KEY_PEM } from './sandbox-ca.ts';
import { formatCertificateSerialNumber } from './signing-key.ts';
import type { SigningMaterial } from './signing-key.ts';

// The global crypto is node:crypto's webcrypto, typed as the Web Crypto the library expects.
x509.cryptoProvider.set(globalThis.crypto);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const RSA_ALGORITHM: webcrypto.RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
};

/** Hacienda's keys are valid for two years (Hacienda's rules for the llave criptográfica). */
const DEFAULT_VALIDITY_MS = 2 * 365 * 24 * 3600 * 1000;
/** PBE iteration count used by OpenSSL and by Hacienda's files. */
const PBE_ITERATIONS = 2048;

export interface TestCa {
  certificateDer: Buffer;
  certificatePem: string;
  privateKeyPkcs8: Buffer;
}

export interface TestCertificateOptions {
  /** Nota 4 type: 01 física, 02 jurídica, 03 DIMEX, 04 NITE. */
  idType: string;
  /** The number as in the XML (e.g. 102340567, 3101123456, 3A01123456). */
  idNumber: string;
  /** Holder's name (CN). */
  name: string;
  notBefore?: Date;
  notAfter?: Date;
  /** PIN for the .p12; a random 4-digit PIN when omitted. */
  pin?: string;
  /** .p12 encryption; default "legacy", as Hacienda issues them. */
  pbe?: 'modern' | 'legacy';
}

export interface TestCertificate {
  p12: Buffer;
  pin: string;
  material: SigningMaterial;
}

interface LoadedCa {
  exported: TestCa;
  key: CryptoKey;
  cert: x509.X509Certificate;
}

let caPromise: Promise<LoadedCa> | null = null;

/** The process's test CA certificate (generated on first use), for verifiers to trust. */
export async function testCaCertificate(): Promise<{ pem: string; der: Buffer }> {
  const ca = await loadCa();
  return { pem: ca.exported.certificatePem, der: ca.exported.certificateDer };
}

/** The process's test CA including its key, to persist and share with other processes. */
export async function exportTestCa(): Promise<TestCa> {
  return (await loadCa()).exported;
}

/** Installs a previously exported test CA so that several processes issue under one root. */
export function useTestCa(ca: TestCa): void {
  caPromise = importCa(ca);
  caPromise.catch(() => {
    caPromise = null;
  });
}

/** Issues a sandbox certificate for a taxpayer and packages it as a .p12. */
export async function createTestCertificate(options: TestCertificateOptions): Promise<TestCertificate> {
  const ca = await loadCa();
  const keys = (await webcrypto.subtle.generateKey(RSA_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const notAfter = options.notAfter ?? new Date(now + DEFAULT_VALIDITY_MS);
  const notBefore =
    options.notBefore ?? new Date(Math.min(now - 60_000, notAfter.getTime() - DEFAULT_VALIDITY_MS));

  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerialHex(),
    subject: subjectName(options),
    issuer: ca.cert.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: RSA_ALGORITHM,
    extensions: [
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.emailProtection]),
    ],
  });

  const privateKeyPkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const certificateChain = [Buffer.from(cert.rawData), ca.exported.certificateDer];
  const pin = options.pin ?? String(randomInt(0, 10_000)).padStart(4, '0');
  const p12 = buildP12(privateKeyPkcs8, certificateChain, pin, options.pbe ?? 'legacy');
  return { p12, pin, material: { privateKeyPkcs8, certificateChain } };
}

/** A new CA with the sandbox CA's names (not trusted by the simulator unless configured). */
export async function generateTestCa(): Promise<TestCa> {
  return (await generateCa()).exported;
}

const pemBody = (pem: string): Buffer =>
  Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s/g, ''), 'base64');

function loadCa(): Promise<LoadedCa> {
  if (!caPromise) {
    caPromise = importCa({
      certificateDer: pemBody(SANDBOX_CA_CERTIFICATE_PEM),
      certificatePem: SANDBOX_CA_CERTIFICATE_PEM,
      privateKeyPkcs8: pemBody(SANDBOX_CA_PRIVATE_KEY_PEM),
    });
    caPromise.catch(() => {
      caPromise = null;
    });
  }
  return caPromise;
}

async function generateCa(): Promise<LoadedCa> {
  const keys = (await webcrypto.subtle.generateKey(RSA_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerialHex(),
    name: new x509.Name([
      { C: [{ printableString: 'CR' }] },
      { O: [{ utf8String: 'MINISTERIO DE HACIENDA SIMULADO - SANDBOX' }] },
      { OU: [{ utf8String: 'DGT SIMULADA' }] },
      { CN: [{ utf8String: 'CA SIMULADA PERSONAS - SANDBOX' }] },
    ]),
    notBefore: new Date(now - 24 * 3600 * 1000),
    notAfter: new Date(now + 20 * 365 * 24 * 3600 * 1000),
    keys,
    signingAlgorithm: RSA_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const privateKeyPkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    key: keys.privateKey,
    cert,
    exported: {
      certificateDer: Buffer.from(cert.rawData),
      certificatePem: cert.toString('pem'),
      privateKeyPkcs8,
    },
  };
}

async function importCa(ca: TestCa): Promise<LoadedCa> {
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    ca.privateKeyPkcs8,
    { name: RSA_ALGORITHM.name, hash: RSA_ALGORITHM.hash },
    true,
    ['sign'],
  );
  return { key, cert: new x509.X509Certificate(new Uint8Array(ca.certificateDer)), exported: ca };
}

/** Subject in the attribute order of Hacienda's certificates (DER order, least specific last). */
function subjectName(options: TestCertificateOptions): x509.Name {
  const serial = formatCertificateSerialNumber(options.idType, options.idNumber);
  const juridica = options.idType === '02';
  const prefix = serial.slice(0, serial.indexOf('-'));
  const words = options.name.trim().split(/\s+/);
  const given = juridica || words.length < 2 ? options.name : words.slice(0, -2).join(' ');
  const surname = juridica || words.length < 2 ? '' : words.slice(-2).join(' ');
  const rdns: x509.JsonNameParams = [{ '2.5.4.5': [{ printableString: serial }] }];
  if (surname) rdns.push({ SN: [{ utf8String: surname }] });
  rdns.push(
    { G: [{ utf8String: given || options.name }] },
    { C: [{ printableString: 'CR' }] },
    { O: [{ utf8String: juridica ? 'PERSONA JURIDICA' : 'PERSONA FISICA' }] },
    { OU: [{ utf8String: prefix }] },
    { CN: [{ utf8String: options.name }] },
  );
  return new x509.Name(rdns);
}

let serialCounter = 0;

/** Hacienda numbers certificates with a millisecond timestamp; a counter keeps ours unique. */
function nextSerialHex(): string {
  serialCounter = (serialCounter + 1) % 1000;
  const value = BigInt(Date.now()) * 1000n + BigInt(serialCounter);
  return value.toString(16).padStart(2, '0');
}

// ---- PKCS#12 assembly (node-forge's builder cannot write encrypted certificate bags) ----

const { asn1, pki } = forge;

const OID_PBE_SHA1_RC2_40 = '1.2.840.113549.1.12.1.6';

function buildP12(
  privateKeyPkcs8: Buffer,
  certificateChain: Buffer[],
  pin: string,
  pbe: 'modern' | 'legacy',
): Buffer {
  const leaf = certificateChain[0]!;
  const localKeyId = createHash('sha1').update(leaf).digest().toString('binary');
  const attributes = bagAttributes(localKeyId);

  const certBags = certificateChain.map((der, i) =>
    seq([
      oid(pki.oids.certBag!),
      explicit0([seq([oid(pki.oids.x509Certificate!), explicit0([octets(der.toString('binary'))])])]),
      ...(i === 0 ? [attributes] : []),
    ]),
  );
  const certContents = seq(certBags);
  const keyInfo = asn1.fromDer(privateKeyPkcs8.toString('binary'));
  const shroudedKey = pki.encryptPrivateKeyInfo(
    keyInfo,
    pin,
    pbe === 'modern'
      ? { algorithm: 'aes256', prfAlgorithm: 'sha256', count: PBE_ITERATIONS, saltSize: 8 }
      : { algorithm: '3des', count: PBE_ITERATIONS, saltSize: 8 },
  );
  const keyContents = seq([seq([oid(pki.oids.pkcs8ShroudedKeyBag!), explicit0([shroudedKey]), attributes])]);

  const certEncrypted =
    pbe === 'modern' ? pbes2Encrypt(certContents, pin) : rc2Encrypt(asn1.toDer(certContents).getBytes(), pin);
  const authSafe = seq([
    seq([
      oid(pki.oids.encryptedData!),
      explicit0([
        seq([
          int(0),
          seq([
            oid(pki.oids.data!),
            certEncrypted.algorithm,
            asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, false, certEncrypted.bytes),
          ]),
        ]),
      ]),
    ]),
    seq([oid(pki.oids.data!), explicit0([octets(asn1.toDer(keyContents).getBytes())])]),
  ]);
  const authSafeDer = asn1.toDer(authSafe).getBytes();

  const macSalt = forge.random.getBytesSync(8);
  const sha = pbe === 'modern' ? 'sha256' : 'sha1';
  const md = pbe === 'modern' ? forge.md.sha256.create() : forge.md.sha1.create();
  const macKey = forge.pkcs12.generateKey(
    pin,
    forge.util.createBuffer(macSalt),
    3,
    PBE_ITERATIONS,
    md.digestLength,
    md,
  );
  const hmac = forge.hmac.create();
  hmac.start(sha, macKey.getBytes());
  hmac.update(authSafeDer);
  const macData = seq([
    seq([
      seq([oid(pki.oids[sha]!), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')]),
      octets(hmac.digest().getBytes()),
    ]),
    octets(macSalt),
    int(PBE_ITERATIONS),
  ]);

  const pfx = seq([int(3), seq([oid(pki.oids.data!), explicit0([octets(authSafeDer)])]), macData]);
  return Buffer.from(asn1.toDer(pfx).getBytes(), 'binary');
}

function pbes2Encrypt(contents: forge.asn1.Asn1, pin: string): { algorithm: forge.asn1.Asn1; bytes: string } {
  // EncryptedPrivateKeyInfo and EncryptedContentInfo share {algorithm, encrypted bytes}.
  const encrypted = pki.encryptPrivateKeyInfo(contents, pin, {
    algorithm: 'aes256',
    prfAlgorithm: 'sha256',
    count: PBE_ITERATIONS,
    saltSize: 8,
  });
  const [algorithm, data] = encrypted.value as forge.asn1.Asn1[];
  return { algorithm: algorithm!, bytes: data!.value as string };
}

function rc2Encrypt(der: string, pin: string): { algorithm: forge.asn1.Asn1; bytes: string } {
  const salt = forge.random.getBytesSync(8);
  const saltBuffer = (): forge.util.ByteBuffer => forge.util.createBuffer(salt);
  const key = forge.pkcs12.generateKey(pin, saltBuffer(), 1, PBE_ITERATIONS, 5);
  const iv = forge.pkcs12.generateKey(pin, saltBuffer(), 2, PBE_ITERATIONS, 8);
  const cipher = forge.rc2.createEncryptionCipher(key, 40);
  cipher.start(iv);
  cipher.update(forge.util.createBuffer(der));
  cipher.finish();
  return {
    algorithm: seq([oid(OID_PBE_SHA1_RC2_40), seq([octets(salt), int(PBE_ITERATIONS)])]),
    bytes: cipher.output.getBytes(),
  };
}

function bagAttributes(localKeyId: string): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, [
    seq([
      oid(pki.oids.localKeyId!),
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, [octets(localKeyId)]),
    ]),
  ]);
}

function seq(items: forge.asn1.Asn1[]): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items);
}

function explicit0(items: forge.asn1.Asn1[]): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, items);
}

function oid(value: string): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(value).getBytes());
}

function octets(bytes: string): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, bytes);
}

function int(value: number): forge.asn1.Asn1 {
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(value).getBytes());
}
