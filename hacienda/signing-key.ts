// The taxpayer's "llave criptográfica": reading the .p12 that Hacienda issues (RSA key plus
// certificate, PIN-protected) and the public facts of its certificate, above all the taxpayer
// identification that the subject carries, so the signer can be matched to the emisor.
//
// The container is opened with node-forge, not node:crypto: Hacienda's files use legacy PKCS#12
// PBE (pbeWithSHA1And40BitRC2-CBC for the certificates, 3DES for the key) that OpenSSL 3 refuses
// without its legacy provider; forge reads those and modern PBES2/AES files alike.
//
// Subject layout of Hacienda certificates (decoded from a sandbox certificate issued by
// "CA PERSONA FISICA - SANDBOX, OU=DGT, O=MINISTERIO DE HACIENDA - SANDBOX, C=CR" in 2026, and
// the same layout seen for personas jurídicas):
//   serialNumber (2.5.4.5, PrintableString) = CPF-02-0860-0363 | CPJ-3-101-408861
//   SN, G, C=CR, O=PERSONA FISICA | PERSONA JURIDICA, OU=CPF | CPJ, CN=<full name>
// CPF carries the 9-digit cédula física as 0X-XXXX-XXXX (a leading zero on the first group);
// CPJ the 10-character cédula jurídica as X-XXX-XXXXXX (letters allowed since 2026). DIMEX and
// NITE holders are written DIMEX-<number> / NITE-<number> (not seen in a public certificate:
// an assumption). BCCR Firma Digital certificates of foreigners use NUP-<number>; they are read
// with an unknown type. Matching always compares normalised numbers (prefix, dashes and leading
// zeros removed), so any of these spellings matches the Nota 4 number in the XML.
import { createHash, createPrivateKey, createPublicKey, X509Certificate as NodeX509 } from 'node:crypto';
import forge from 'node-forge';

export interface SigningMaterial {
  /** Unencrypted PKCS#8 DER of the RSA private key. */
  privateKeyPkcs8: Buffer;
  /** DER certificates, the signing certificate first, then any CA certificates from the file. */
  certificateChain: Buffer[];
}

export type SigningKeyErrorCode =
  | 'invalid_p12'
  | 'wrong_pin'
  | 'no_private_key'
  | 'unsupported_key'
  | 'no_certificate'
  | 'certificate_expired'
  | 'certificate_not_yet_valid'
  | 'certificate_other_taxpayer';

/** A .p12 or certificate that cannot be used for signing; `code` is stable for API/CLI messages. */
export class SigningKeyError extends Error {
  constructor(
    readonly code: SigningKeyErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SigningKeyError';
  }
}

export interface CertificateIdentification {
  /** Nota 4 code: 01 física, 02 jurídica, 03 DIMEX, 04 NITE; null for an unknown prefix. */
  idType: string | null;
  /** The number as written in the XML (no dashes; no leading zero for física/DIMEX). */
  idNumber: string;
}

export interface CertificateInfo {
  subject: string;
  issuer: string;
  serialNumberDecimal: string;
  notBefore: Date;
  notAfter: Date;
  identification: { idType?: string; idNumber: string } | null;
}

/** OID of the X.520 serialNumber attribute that carries the identification. */
const OID_SERIAL_NUMBER = '2.5.4.5';

/** Certificate prefixes and the Nota 4 type they stand for. */
const PREFIX_TYPES: Record<string, string | null> = {
  CPF: '01',
  CPJ: '02',
  DIMEX: '03',
  NITE: '04',
  NUP: null,
};

/**
 * Opens a .p12 with its PIN and returns the RSA key with its certificate (the one whose public key
 * matches) first, followed by the other certificates of the file.
 */
export function readP12(p12: Buffer, pin: string): SigningMaterial {
  let pfxAsn1: forge.asn1.Asn1;
  try {
    pfxAsn1 = forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
  } catch {
    throw new SigningKeyError('invalid_p12', 'The file is not a PKCS#12 (.p12) container');
  }
  let pfx: forge.pkcs12.Pkcs12Pfx;
  try {
    pfx = forge.pkcs12.pkcs12FromAsn1(pfxAsn1, false, pin);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // forge reports a failed MAC check this way; without a MAC, a wrong PIN shows up as garbage
    // that fails to decode after decryption.
    if (/Invalid password|MAC could not be verified|Too few bytes|decrypt/i.test(message)) {
      throw new SigningKeyError('wrong_pin', 'The PIN does not open this .p12 file');
    }
    throw new SigningKeyError('invalid_p12', `The .p12 file could not be read: ${message}`);
  }

  const keyBags = [
    ...(pfx.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!] ??
      []),
    ...(pfx.getBags({ bagType: forge.pki.oids.keyBag! })[forge.pki.oids.keyBag!] ?? []),
  ];
  const certificates = (pfx.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? []).map(
    certificateDer,
  );

  if (keyBags.length === 0) {
    throw new SigningKeyError('no_private_key', 'The .p12 file holds no private key');
  }
  const rsaKeys = keyBags.flatMap((bag) => {
    if (!bag.key) return [];
    const der = forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key))).getBytes();
    return [Buffer.from(der, 'binary')];
  });
  if (rsaKeys.length === 0) {
    throw new SigningKeyError(
      'unsupported_key',
      'The private key in the .p12 file is not an RSA key (Hacienda requires RSA)',
    );
  }
  if (certificates.length === 0) {
    throw new SigningKeyError('no_certificate', 'The .p12 file holds no certificate');
  }

  for (const keyDer of rsaKeys) {
    const publicKey = createPublicKey(createPrivateKey({ key: keyDer, format: 'der', type: 'pkcs8' }))
      .export({ format: 'der', type: 'pkcs1' })
      .toString('base64');
    const ownIndex = certificates.findIndex((der) => publicKeyPkcs1(der) === publicKey);
    if (ownIndex >= 0) {
      const own = certificates[ownIndex]!;
      return {
        privateKeyPkcs8: keyDer,
        certificateChain: [own, ...certificates.filter((_, i) => i !== ownIndex)],
      };
    }
  }
  throw new SigningKeyError('no_certificate', 'The .p12 file holds no certificate for its private key');
}

function certificateDer(bag: forge.pkcs12.Bag): Buffer {
  // forge keeps the parsed TBSCertificate, so re-encoding gives back the original DER bytes.
  // A certificate forge cannot parse (non-RSA key) is left as raw ASN.1.
  const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1;
  if (!asn1) throw new SigningKeyError('invalid_p12', 'A certificate bag in the .p12 is empty');
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

/** The certificate's public key in a comparable form (RSA: PKCS#1 DER base64). */
function publicKeyPkcs1(der: Buffer): string | null {
  try {
    const key = new NodeX509(der).publicKey;
    if (key.asymmetricKeyType !== 'rsa') return null;
    return key.export({ format: 'der', type: 'pkcs1' }).toString('base64');
  } catch {
    return null;
  }
}

/** Public facts of a DER certificate, for operators and for the signer/emisor check. */
export function certificateInfo(der: Buffer): CertificateInfo {
  const cert = parseCertificate(der);
  const identification = certificateIdentification(der);
  return {
    subject: rfc4514(cert.subjectAttributes),
    issuer: rfc4514(cert.issuerAttributes),
    serialNumberDecimal: BigInt(`0x${cert.serialHex}`).toString(10),
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    identification: identification
      ? identification.idType === null
        ? { idNumber: identification.idNumber }
        : { idType: identification.idType, idNumber: identification.idNumber }
      : null,
  };
}

/**
 * The taxpayer identification written in the certificate subject's serialNumber attribute
 * (`CPF-01-0234-0567`, `CPJ-3-101-123456`, `DIMEX-…`, `NITE-…`), or null when there is none.
 */
export function certificateIdentification(der: Buffer): CertificateIdentification | null {
  // A signer sends thousands of documents under one certificate: its identification is read once.
  const key = der.toString('base64');
  const known = identifications.get(key);
  if (known !== undefined) return known && { ...known };
  const cert = parseCertificate(der);
  const serial = cert.subjectAttributes.find((a) => a.oid === OID_SERIAL_NUMBER)?.value;
  const found = serial === undefined ? null : parseSubjectSerialNumber(serial);
  if (identifications.size >= MAX_KNOWN_IDENTIFICATIONS) identifications.clear();
  identifications.set(key, found);
  return found && { ...found };
}

const identifications = new Map<string, CertificateIdentification | null>();
const MAX_KNOWN_IDENTIFICATIONS = 512;

/** Parses a subject serialNumber value such as `CPF-01-0234-0567`. */
export function parseSubjectSerialNumber(value: string): CertificateIdentification | null {
  const trimmed = value.trim().toUpperCase();
  const match = /^([A-Z]+)[-\s]?([A-Z0-9][A-Z0-9\s-]*)$/.exec(trimmed);
  let idType: string | null = null;
  let rest = trimmed;
  if (match && match[1]! in PREFIX_TYPES) {
    idType = PREFIX_TYPES[match[1]!] ?? null;
    rest = match[2]!;
  }
  const compact = rest.replace(/[^A-Z0-9]/g, '');
  if (compact === '') return null;
  // Nota 4: física and DIMEX numbers are written without a leading zero.
  const idNumber = idType === '01' || idType === '03' ? compact.replace(/^0+/, '') : compact;
  return { idType, idNumber };
}

/**
 * The subject serialNumber value Hacienda writes for a taxpayer: CPF-0X-XXXX-XXXX for a cédula
 * física, CPJ-X-XXX-XXXXXX for a cédula jurídica, DIMEX-<number>, NITE-<number>.
 */
export function formatCertificateSerialNumber(idType: string, idNumber: string): string {
  const n = idNumber.toUpperCase().replace(/[^A-Z0-9]/g, '');
  switch (idType) {
    case '01': {
      if (!/^[1-9]\d{8}$/.test(n)) throw new RangeError(`Cédula física must be 9 digits: ${idNumber}`);
      return `CPF-0${n.slice(0, 1)}-${n.slice(1, 5)}-${n.slice(5)}`;
    }
    case '02': {
      if (!/^[A-Z0-9]{10}$/.test(n)) {
        throw new RangeError(`Cédula jurídica must be 10 characters: ${idNumber}`);
      }
      return `CPJ-${n.slice(0, 1)}-${n.slice(1, 4)}-${n.slice(4)}`;
    }
    case '03':
      if (!/^[1-9]\d{10,11}$/.test(n)) throw new RangeError(`DIMEX must be 11 or 12 digits: ${idNumber}`);
      return `DIMEX-${n}`;
    case '04':
      if (!/^\d{10}$/.test(n)) throw new RangeError(`NITE must be 10 digits: ${idNumber}`);
      return `NITE-${n}`;
    default:
      throw new RangeError(`Certificates are issued for identification types 01-04, not ${idType}`);
  }
}

/**
 * Canonical form for comparing identification numbers from different sources: upper case, no
 * prefix, dashes, spaces or leading zeros (`CPF-01-0234-0567` and `102340567` compare equal).
 */
export function normalizeIdentificationNumber(value: string): string {
  const parsed = parseSubjectSerialNumber(value);
  const digits = (parsed ? parsed.idNumber : value).toUpperCase().replace(/[^A-Z0-9]/g, '');
  return digits.replace(/^0+/, '');
}

/**
 * True when the certificate belongs to the given taxpayer (the emisor's Tipo/Numero from the XML).
 * The type is compared only when both sides know it.
 */
export function certificateBelongsTo(
  der: Buffer,
  identification: { idType?: string | null; idNumber: string },
): boolean {
  const own = certificateIdentification(der);
  if (!own) return false;
  if (own.idType && identification.idType && own.idType !== identification.idType) return false;
  const a = normalizeIdentificationNumber(own.idNumber);
  return a !== '' && a === normalizeIdentificationNumber(identification.idNumber);
}

/** Throws a SigningKeyError when the certificate is outside its validity period at `at`. */
export function assertCertificateCurrent(der: Buffer, at: Date = new Date()): void {
  const { notBefore, notAfter } = parseCertificate(der);
  if (at.getTime() > notAfter.getTime()) {
    throw new SigningKeyError(
      'certificate_expired',
      `The certificate expired on ${notAfter.toISOString()}; generate a new llave criptográfica`,
    );
  }
  if (at.getTime() < notBefore.getTime()) {
    throw new SigningKeyError(
      'certificate_not_yet_valid',
      `The certificate is valid only from ${notBefore.toISOString()}`,
    );
  }
}

/** SHA-256 fingerprint (hex) of a DER certificate, for logs and operator screens. */
export function certificateFingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}

interface NameAttribute {
  oid: string;
  value: string;
}

interface ParsedCertificate {
  subjectAttributes: NameAttribute[];
  issuerAttributes: NameAttribute[];
  serialHex: string;
  notBefore: Date;
  notAfter: Date;
}

function parseCertificate(der: Buffer): ParsedCertificate {
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
  } catch {
    throw new SigningKeyError('no_certificate', 'Not a DER X.509 certificate');
  }
  // Walk the TBSCertificate directly so that certificates forge cannot fully parse (non-RSA keys)
  // still give their names and dates.
  const tbs = children(children(asn1)[0]);
  const offset = tbs[0]?.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  const serial = tbs[offset];
  const issuer = tbs[offset + 2];
  const validity = children(tbs[offset + 3]);
  const subject = tbs[offset + 4];
  if (!serial || !issuer || !subject || validity.length !== 2) {
    throw new SigningKeyError('no_certificate', 'Not a DER X.509 certificate');
  }
  return {
    serialHex: forge.util.bytesToHex(serial.value as string) || '0',
    issuerAttributes: nameAttributes(issuer),
    subjectAttributes: nameAttributes(subject),
    notBefore: asn1Time(validity[0]!),
    notAfter: asn1Time(validity[1]!),
  };
}

function children(node: forge.asn1.Asn1 | undefined): forge.asn1.Asn1[] {
  return node && Array.isArray(node.value) ? node.value : [];
}

function nameAttributes(name: forge.asn1.Asn1): NameAttribute[] {
  const out: NameAttribute[] = [];
  for (const rdn of children(name)) {
    for (const atv of children(rdn)) {
      const [oidNode, valueNode] = children(atv);
      if (!oidNode || !valueNode || typeof valueNode.value !== 'string') continue;
      const raw = valueNode.value;
      const value =
        valueNode.type === forge.asn1.Type.BMPSTRING
          ? Buffer.from(raw, 'binary').swap16().toString('utf16le')
          : valueNode.type === forge.asn1.Type.UTF8
            ? forge.util.decodeUtf8(raw)
            : raw;
      out.push({ oid: forge.asn1.derToOid(oidNode.value as string), value });
    }
  }
  return out;
}

function asn1Time(node: forge.asn1.Asn1): Date {
  const text = node.value as string;
  return node.type === forge.asn1.Type.UTCTIME
    ? forge.asn1.utcTimeToDate(text)
    : forge.asn1.generalizedTimeToDate(text);
}

const SHORT_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.4': 'SN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.42': 'G',
  '1.2.840.113549.1.9.1': 'E',
};

/** RFC 4514 string (most specific attribute first), e.g. `CN=…,OU=CPF,O=PERSONA FISICA,C=CR,…`. */
function rfc4514(attributes: NameAttribute[]): string {
  return [...attributes]
    .reverse()
    .map((a) => `${SHORT_NAMES[a.oid] ?? a.oid}=${escapeDnValue(a.value)}`)
    .join(',');
}

function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, '\\ ');
}

/**
 * A company's .p12 checked as it is handed in (the API and the command-line tool): it opens with
 * the PIN, its certificate is current at `at`, and it carries the company's identification (a
 * certificate of another taxpayer would have every document rejected). Throws SigningKeyError.
 */
export function openCompanyP12(
  p12: Buffer,
  pin: string,
  company: { idType: string; idNumber: string },
  at: Date = new Date(),
): { material: SigningMaterial; info: CertificateInfo } {
  const material = readP12(p12, pin);
  const cert = material.certificateChain[0]!;
  assertCertificateCurrent(cert, at);
  if (!certificateBelongsTo(cert, company))
    throw new SigningKeyError(
      'certificate_other_taxpayer',
      `The certificate does not belong to ${company.idNumber}; Hacienda would reject every document`,
    );
  return { material, info: certificateInfo(cert) };
}
