// Verification of a comprobante's XAdES signature, as the simulator (and any check before
// sending) needs it: the signature value and every reference digest (document, KeyInfo,
// SignedProperties) via xadesjs, checked against the key of the certificate named by
// SigningCertificate, never against a bare KeyValue. It also checks what a cryptographic check
// alone would let through: that the whole document is signed (URI="" with the enveloped
// transform), that SignedProperties are signed, and that SigningCertificate's digest and serial
// number match the KeyInfo certificate. Whether the signer is the emisor is a separate question:
// pass `signingCertificate` to certificateBelongsTo (signing-key.ts).
import { createHash, type KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import type { Document, Element } from '@xmldom/xmldom';
import { certificateInfo } from './signing-key.ts';
import {
  NS_DS,
  NS_XADES,
  SIGNED_PROPERTIES_TYPE,
  XmlDocumentError,
  assertNoInheritableXmlAttributes,
  parseXmlStrict,
  xades,
} from './xades-env.ts';

export interface XadesVerification {
  valid: boolean;
  /** DER of the certificate that the SigningCertificate property names, when found. */
  signingCertificate: Buffer | null;
  errors: string[];
  /** The signed SigningTime, when present and readable. */
  signingTime: Date | null;
}

const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const C14N_TRANSFORMS = new Set([
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
  'http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments',
  'http://www.w3.org/2001/10/xml-exc-c14n#',
  'http://www.w3.org/2001/10/xml-exc-c14n#WithComments',
  'http://www.w3.org/2006/12/xml-c14n11',
]);
const RSA_SIGNATURE_HASHES: Record<string, string> = {
  'http://www.w3.org/2000/09/xmldsig#rsa-sha1': 'SHA-1',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'SHA-256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': 'SHA-384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'SHA-512',
};
const DIGEST_HASHES: Record<string, string> = {
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#sha384': 'sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
};

/** Verifies the (single) XAdES signature of a comprobante. Never throws for a bad document. */
export async function verifyXadesSignature(xml: string): Promise<XadesVerification> {
  const result: XadesVerification = {
    valid: false,
    signingCertificate: null,
    errors: [],
    signingTime: null,
  };
  try {
    await verifyInto(xml, result);
  } catch (err) {
    result.errors.push(errorMessage(err));
  }
  result.valid = result.errors.length === 0;
  return result;
}

async function verifyInto(xml: string, result: XadesVerification): Promise<void> {
  const errors = result.errors;
  const doc = parseXmlStrict(xml);
  const root = doc.documentElement!;
  const signatures = elements(doc.getElementsByTagNameNS(NS_DS, 'Signature'));
  if (signatures.length === 0) throw new XmlDocumentError('The document is not signed');
  if (signatures.length > 1) {
    throw new XmlDocumentError(`Expected one ds:Signature, found ${signatures.length}`);
  }
  assertNoInheritableXmlAttributes(root);
  const signature = signatures[0]!;
  if (signature.parentNode !== root) {
    errors.push('ds:Signature is not a child of the root element');
  }

  // 1. References: the whole document, and the SignedProperties of this signature.
  const signedInfo = child(signature, NS_DS, 'SignedInfo');
  if (!signedInfo) throw new XmlDocumentError('ds:Signature has no SignedInfo');
  const references = children(signedInfo, NS_DS, 'Reference');
  checkReferences(references, errors);
  const signedProperties = checkSignedProperties(doc, signature, references, result);

  // 2. The signing certificate: the KeyInfo certificate whose digest SigningCertificate holds.
  const keyInfo = child(signature, NS_DS, 'KeyInfo');
  const certificates = keyInfo
    ? elements(keyInfo.getElementsByTagNameNS(NS_DS, 'X509Certificate')).map((e) =>
        Buffer.from((e.textContent ?? '').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'),
      )
    : [];
  if (certificates.length === 0) throw new XmlDocumentError('KeyInfo carries no X509Certificate');
  const signingCertificate = findSigningCertificate(signedProperties, certificates, errors);
  result.signingCertificate = signingCertificate;
  const keyCertificate = signingCertificate ?? certificates[0]!;

  // 3. A KeyValue, if present, must be the certificate's key (it is not used for verification).
  const publicKey = new X509Certificate(keyCertificate).publicKey;
  if (publicKey.asymmetricKeyType !== 'rsa') {
    throw new XmlDocumentError('The signing certificate does not hold an RSA key');
  }
  checkKeyValue(keyInfo, publicKey, errors);

  // 4. Signature value and all reference digests, with the certificate's key only.
  await verifySignatureValue(doc, signature, signedInfo, publicKey, errors);
}

/** Exactly one reference to the whole document, with the enveloped transform; none to an external resource. */
function checkReferences(references: Element[], errors: string[]): void {
  const documentRefs = references.filter((r) => r.getAttribute('URI') === '');
  if (documentRefs.length !== 1) {
    errors.push('The signature must have exactly one reference to the whole document (URI="")');
  } else {
    const algorithms = children(child(documentRefs[0]!, NS_DS, 'Transforms'), NS_DS, 'Transform').map(
      (t) => t.getAttribute('Algorithm') ?? '',
    );
    if (
      !algorithms.includes(ENVELOPED) ||
      algorithms.some((a) => a !== ENVELOPED && !C14N_TRANSFORMS.has(a))
    ) {
      errors.push('The document reference must use only the enveloped-signature transform');
    }
  }
  for (const ref of references) {
    const uri = ref.getAttribute('URI');
    if (uri === null || (uri !== '' && !uri.startsWith('#'))) {
      errors.push(`Reference to an external resource is not accepted: ${uri ?? '(no URI)'}`);
    }
  }
}

/**
 * The signature's xades:SignedProperties: covered by a signed reference, their QualifyingProperties
 * targeting this signature; their SigningTime goes to `result`. Null when there are none.
 */
function checkSignedProperties(
  doc: Document,
  signature: Element,
  references: Element[],
  result: XadesVerification,
): Element | null {
  const errors = result.errors;
  const qualifying = elements(signature.getElementsByTagNameNS(NS_XADES, 'QualifyingProperties'));
  const signedProperties = qualifying[0] ? child(qualifying[0], NS_XADES, 'SignedProperties') : null;
  if (!signedProperties) {
    errors.push('The signature has no xades:SignedProperties');
    return null;
  }
  const id = signedProperties.getAttribute('Id');
  const covered = references.some(
    (r) => r.getAttribute('Type') === SIGNED_PROPERTIES_TYPE && id && r.getAttribute('URI') === `#${id}`,
  );
  if (!covered) errors.push('xades:SignedProperties are not covered by a signed reference');
  const targetProblem = qualifyingTargetProblem(doc, qualifying[0]!, signature);
  if (targetProblem) errors.push(targetProblem);
  const time = first(signedProperties.getElementsByTagNameNS(NS_XADES, 'SigningTime'))?.textContent;
  if (time) {
    const parsed = new Date(time.trim());
    if (!Number.isNaN(parsed.getTime())) result.signingTime = parsed;
  }
  return signedProperties;
}

/**
 * The KeyInfo certificate whose digest SigningCertificate holds, its serial number and issuer
 * checked; null (with the reason in `errors`) when none matches.
 */
function findSigningCertificate(
  signedProperties: Element | null,
  certificates: Buffer[],
  errors: string[],
): Buffer | null {
  const certRef = signedProperties
    ? (first(signedProperties.getElementsByTagNameNS(NS_XADES, 'SigningCertificate')) ??
      first(signedProperties.getElementsByTagNameNS(NS_XADES, 'SigningCertificateV2')))
    : null;
  const certEntry = certRef ? child(certRef, NS_XADES, 'Cert') : null;
  if (!certEntry) {
    errors.push('xades:SigningCertificate is missing');
    return null;
  }
  let signingCertificate: Buffer | null = null;
  const digestAlgorithm =
    first(certEntry.getElementsByTagNameNS(NS_DS, 'DigestMethod'))?.getAttribute('Algorithm') ?? '';
  const expected = (first(certEntry.getElementsByTagNameNS(NS_DS, 'DigestValue'))?.textContent ?? '').replace(
    /\s/g,
    '',
  );
  const hash = DIGEST_HASHES[digestAlgorithm];
  if (!hash) {
    errors.push(`Unsupported SigningCertificate digest algorithm: ${digestAlgorithm}`);
  } else {
    signingCertificate =
      certificates.find((der) => createHash(hash).update(der).digest('base64') === expected) ?? null;
    if (!signingCertificate) {
      errors.push('SigningCertificate digest does not match the KeyInfo certificate');
    }
  }
  if (signingCertificate) {
    const info = certificateInfo(signingCertificate);
    const serial = (
      first(certEntry.getElementsByTagNameNS(NS_DS, 'X509SerialNumber'))?.textContent ?? ''
    ).trim();
    if (serial && !sameSerial(serial, info.serialNumberDecimal)) {
      errors.push('SigningCertificate serial number does not match the certificate');
    }
    const issuer = first(certEntry.getElementsByTagNameNS(NS_DS, 'X509IssuerName'))?.textContent ?? '';
    if (issuer && !sameDistinguishedName(issuer, info.issuer)) {
      errors.push('SigningCertificate issuer name does not match the certificate');
    }
  }
  return signingCertificate;
}

/** A KeyValue, when KeyInfo has one, must be the signing certificate's key. */
function checkKeyValue(keyInfo: Element | null, publicKey: KeyObject, errors: string[]): void {
  const rsaKeyValue = keyInfo ? first(keyInfo.getElementsByTagNameNS(NS_DS, 'RSAKeyValue')) : null;
  if (!rsaKeyValue) return;
  const jwk = publicKey.export({ format: 'jwk' });
  const modulus = child(rsaKeyValue, NS_DS, 'Modulus')?.textContent ?? '';
  const exponent = child(rsaKeyValue, NS_DS, 'Exponent')?.textContent ?? '';
  if (!sameInteger(modulus, jwk.n ?? '') || !sameInteger(exponent, jwk.e ?? '')) {
    errors.push('KeyValue does not match the signing certificate');
  }
}

/** The signature value and every reference digest (xadesjs), verified with the certificate's key only. */
async function verifySignatureValue(
  doc: Document,
  signature: Element,
  signedInfo: Element,
  publicKey: KeyObject,
  errors: string[],
): Promise<void> {
  const method = child(signedInfo, NS_DS, 'SignatureMethod')?.getAttribute('Algorithm') ?? '';
  const hash = RSA_SIGNATURE_HASHES[method];
  if (!hash) throw new XmlDocumentError(`Unsupported signature method: ${method}`);
  const key = await webcrypto.subtle.importKey(
    'spki',
    publicKey.export({ format: 'der', type: 'spki' }),
    { name: 'RSASSA-PKCS1-v1_5', hash },
    true,
    ['verify'],
  );
  const x = xades();
  const signedXml = new x.SignedXml(doc as never);
  signedXml.LoadXml(signature as never);
  try {
    const ok = await signedXml.Verify(key);
    if (!ok) errors.push('The signature value does not verify with the signing certificate');
  } catch (err) {
    errors.push(errorMessage(err));
  }
}

/**
 * QualifyingProperties/@Target names the signature they qualify (ETSI TS 101 903 §6.2): `#<Id>`
 * of this ds:Signature. The attribute is not signed, and here the properties sit inside this
 * signature's own ds:Object with their SignedProperties covered by its signed reference, which is
 * what binds them to it. So a Target naming no element of the document is accepted: xadesjs
 * writes one whenever the signer sets the Signature's Id (it targets the `id-…` it generated
 * first, e.g. `Target="#id-0a43…"` beside `Id="xmldsig-f72e…"`, as suppliers' signers built on
 * xadesjs sign). A Target naming another element, or none at all, says the properties belong elsewhere.
 */
function qualifyingTargetProblem(doc: Document, qualifying: Element, signature: Element): string | null {
  const target = (qualifying.getAttribute('Target') ?? '').trim();
  const signatureId = signature.getAttribute('Id');
  if (!target.startsWith('#')) return 'xades:QualifyingProperties have no Target naming this signature';
  let id = target.slice(1);
  try {
    id = decodeURIComponent(id);
  } catch {
    // Not percent-encoding: the fragment as written.
  }
  if (signatureId && id === signatureId) return null;
  const named = elements(doc.getElementsByTagName('*')).find(
    (e) => e.getAttribute('Id') === id || e.getAttribute('ID') === id || e.getAttribute('id') === id,
  );
  return named ? `xades:QualifyingProperties target another element (${target}), not this signature` : null;
}

/** xmldsigjs throws XmlError objects that are not Error instances. */
function errorMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err && typeof err.message === 'string') {
    return err.message;
  }
  return String(err);
}

function elements(list: { length: number; item(i: number): Element | null }): Element[] {
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const e = list.item(i);
    if (e) out.push(e);
  }
  return out;
}

function first(list: { length: number; item(i: number): Element | null }): Element | null {
  return list.length > 0 ? list.item(0) : null;
}

function children(parent: Element | null, ns: string, localName: string): Element[] {
  const out: Element[] = [];
  if (!parent) return out;
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    const e = node as Element;
    if (node.nodeType === 1 && e.namespaceURI === ns && e.localName === localName) out.push(e);
  }
  return out;
}

function child(parent: Element | null, ns: string, localName: string): Element | null {
  return children(parent, ns, localName)[0] ?? null;
}

function sameSerial(written: string, decimal: string): boolean {
  try {
    return BigInt(written) === BigInt(decimal);
  } catch {
    return false;
  }
}

/** Base64 (XML-DSig CryptoBinary) and base64url (JWK) big-endian integers, ignoring leading zeros. */
function sameInteger(xmlBase64: string, jwkBase64Url: string): boolean {
  const a = Buffer.from(xmlBase64.replace(/\s/g, ''), 'base64')
    .toString('hex')
    .replace(/^(00)+/, '');
  const b = Buffer.from(jwkBase64Url, 'base64url')
    .toString('hex')
    .replace(/^(00)+/, '');
  return a !== '' && a === b;
}

/**
 * Compares distinguished names written by different tools: order of attributes, spacing after
 * commas, letter case and short/long attribute names vary (`CN=a,O=b` vs `O=b, CN=a`).
 */
function sameDistinguishedName(a: string, b: string): boolean {
  const norm = (dn: string): string =>
    splitDn(dn)
      .map((part) => {
        const eq = part.indexOf('=');
        const type = part.slice(0, eq).trim().toUpperCase();
        const value = dnValue(part.slice(eq + 1).trim())
          .replace(/\s+/g, ' ')
          .toUpperCase();
        return `${DN_ALIASES[type] ?? type}=${value}`;
      })
      .sort()
      .join('\n');
  return norm(a) === norm(b);
}

/** RFC 4514 allows `#<hex DER>` values (BCCR issuers are often written so); decode strings. */
function dnValue(value: string): string {
  if (!/^#([0-9a-fA-F]{2})+$/.test(value)) return value;
  const der = Buffer.from(value.slice(1), 'hex');
  let length = der[1] ?? 0;
  let offset = 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + (der[2 + i] ?? 0);
    offset += bytes;
  }
  return der.subarray(offset, offset + length).toString('utf8');
}

const DN_ALIASES: Record<string, string> = {
  SERIALNUMBER: '2.5.4.5',
  'OID.2.5.4.5': '2.5.4.5',
  GN: 'G',
  GIVENNAME: 'G',
  SURNAME: 'SN',
  S: 'ST',
  E: 'EMAILADDRESS',
};

function splitDn(dn: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < dn.length; i++) {
    const c = dn[i]!;
    if (c === '\\' && i + 1 < dn.length) {
      current += dn[++i];
    } else if (c === ',' || c === ';' || c === '+') {
      if (current.trim()) parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (current.trim()) parts.push(current);
  return parts;
}
