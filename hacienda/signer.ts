// XAdES-EPES signing of comprobantes in the layout Hacienda accepts (Hacienda's XAdES-EPES profile, Anexo 2 of v4.4):
//   ds:Signature Id="Signature-<uuid>" appended as the root's last child, inclusive C14N 1.0,
//   RSA-SHA256, three SHA-256 references (the document URI="" with only the enveloped-signature
//   transform; the KeyInfo; the SignedProperties), KeyInfo with X509Certificate and RSAKeyValue,
//   SignedProperties with SigningTime in Costa Rica time (-06:00), SigningCertificate,
//   the v4.4 SignaturePolicyIdentifier with Hacienda's published digest, ClaimedRole "Emisor"
//   and a DataObjectFormat (text/xml, UTF-8) for the document reference.
//
// The returned string is the input text with the signature inserted before the root's closing
// tag: the document's own bytes (XML declaration, whitespace, attribute order) are never
// re-serialised, so what was digested is exactly what is stored and sent.
//
// Two paths write that same signature. The fast one (fast-signer.ts) reads the canonical form of
// a document in the shape our XML builder writes straight from its text and fills the signature
// in from templates: one scan, three SHA-256, one RSA operation. Every other document (comments,
// CDATA, single quotes, namespace declarations below the root, ...) goes through xadesjs, which
// parses it into a DOM and also refuses what cannot be signed faithfully. Both give byte-identical
// output for the same ids and time; `engine: 'xadesjs'` forces the DOM path (benchmarks, tests).
import { createHash, randomUUID, webcrypto, X509Certificate } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { SignedXml } from 'xadesjs';
import type { OptionsXAdES } from 'xadesjs';
import {
  CryptoConfig,
  KeyInfoX509Data,
  KeyValue,
  RsaKeyValue,
  X509Certificate as DsigCertificate,
} from 'xmldsigjs';
import { fastSigningKey, signFast } from './fast-signer.ts';
import type { SignatureIds } from './fast-signer.ts';
import { certificateInfo } from './signing-key.ts';
import type { SigningMaterial } from './signing-key.ts';
import {
  NS_DS,
  POLICY_DIGEST_SHA256,
  POLICY_URL,
  XmlDocumentError,
  assertNoInheritableXmlAttributes,
  parseXmlStrict,
  serializeXml,
  xades,
} from './xades-env.ts';
import type { WebCryptoKey } from './xades-env.ts';

export interface SignOptions {
  /** Defaults to now. Written as Costa Rica local time with a -06:00 offset. */
  signingTime?: Date;
}

export interface XadesSigner {
  /** Signs a comprobante; the UTF-8 bytes of the result are the bytes to store and send. */
  sign(xml: string, opts?: SignOptions): Promise<string>;
  /** The signing certificate (DER). */
  readonly certificate: Buffer;
}

const RSA_SHA256 = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;
/** Costa Rica has kept UTC-6 all year since 1992. */
const CR_OFFSET_MS = -6 * 3600 * 1000;
const SIGNING_TIME_FORMAT = "UTC:yyyy-mm-dd'T'HH:MM:ss'-06:00'";
const NODE_PROCESSING_INSTRUCTION = 7;
const SHA256_URI = 'http://www.w3.org/2001/04/xmlenc#sha256';

export type { SignatureIds } from './fast-signer.ts';

export interface SignerOptions {
  /** 'fast' (default): templates when the document allows it, else xadesjs; 'xadesjs': always the DOM path. */
  engine?: 'fast' | 'xadesjs';
  /** The UUIDs of each signature; random by default (fixed ids make outputs comparable in tests). */
  ids?: () => SignatureIds;
}

const randomIds = (): SignatureIds => ({ signature: randomUUID(), reference: randomUUID() });

/** Prepares a signer for one key; the key is imported once and reused for every document. */
export async function createSigner(
  material: SigningMaterial,
  options: SignerOptions = {},
): Promise<XadesSigner> {
  const certificate = material.certificateChain[0];
  if (!certificate) throw new Error('Signing material has no certificate');
  const privateKey = await webcrypto.subtle.importKey('pkcs8', material.privateKeyPkcs8, RSA_SHA256, false, [
    'sign',
  ]);
  const info = certificateInfo(certificate);
  const jwk = new X509Certificate(certificate).publicKey.export({ format: 'jwk' });
  const keys: SignerKeys = {
    privateKey,
    certificate,
    parsedCertificate: new DsigCertificate(new Uint8Array(certificate)),
    modulus: new Uint8Array(Buffer.from(jwk.n ?? '', 'base64url')),
    exponent: new Uint8Array(Buffer.from(jwk.e ?? '', 'base64url')),
    certificateDigest: new Uint8Array(createHash('sha256').update(certificate).digest()),
    issuerName: info.issuer,
    serialNumber: info.serialNumberDecimal,
  };
  const fastKey = options.engine === 'xadesjs' ? null : fastSigningKey(material);
  const newIds = options.ids ?? randomIds;
  return {
    certificate,
    sign: async (xml, opts) => {
      const signingTime = opts?.signingTime ?? new Date();
      const ids = newIds();
      const fast = fastKey ? signFast(xml, signingTime, fastKey, ids) : null;
      return fast ?? signDocument(xml, signingTime, keys, ids);
    },
  };
}

interface SignerKeys {
  privateKey: WebCryptoKey;
  certificate: Buffer;
  /** Parsed once: xmldsigjs parses a certificate with pkijs, ~0.5 ms each time. */
  parsedCertificate: DsigCertificate;
  modulus: Uint8Array;
  exponent: Uint8Array;
  /** SHA-256 of the DER certificate, for SigningCertificate/CertDigest. */
  certificateDigest: Uint8Array;
  /** RFC 4514 issuer name, as Hacienda's own signatures write it. */
  issuerName: string;
  serialNumber: string;
}

async function signDocument(
  xml: string,
  signingTime: Date,
  keys: SignerKeys,
  ids: SignatureIds,
): Promise<string> {
  const doc = parseXmlStrict(xml);
  for (let node = doc.firstChild; node; node = node.nextSibling) {
    // URI="" covers processing instructions outside the root, which some verifiers digest and
    // others do not; refuse them rather than produce a signature that depends on the verifier.
    if (node.nodeType === NODE_PROCESSING_INSTRUCTION && node.nodeName !== 'xml') {
      throw new XmlDocumentError('Processing instructions outside the root element are not signed');
    }
  }
  const root = doc.documentElement!;
  assertNoInheritableXmlAttributes(root);
  if (root.getElementsByTagNameNS(NS_DS, 'Signature').length > 0) {
    throw new XmlDocumentError('The document is already signed');
  }

  const x = xades();
  const uuid = ids.signature;
  const signatureId = `Signature-${uuid}`;
  const referenceId = `Reference-${ids.reference}`;
  const keyInfoId = `KeyInfoId-${signatureId}`;

  const signedXml = new HaciendaSignedXml();
  const signature = signedXml.XmlSignature;
  signature.Id = signatureId;
  const properties = signedXml.Properties!;
  properties.Target = `#${signatureId}`;
  properties.SignedProperties.Id = `SignedProperties-${signatureId}`;

  signature.KeyInfo.Id = keyInfoId;
  signature.KeyInfo.Add(new KeyInfoX509Data(keys.parsedCertificate));
  const rsaKeyValue = new RsaKeyValue();
  rsaKeyValue.Modulus = keys.modulus;
  rsaKeyValue.Exponent = keys.exponent;
  signature.KeyInfo.Add(new KeyValue(rsaKeyValue));

  const cert = new x.xml.Cert();
  cert.CertDigest.DigestMethod.Algorithm = SHA256_URI;
  cert.CertDigest.DigestValue = keys.certificateDigest;
  cert.IssuerSerial.X509IssuerName = keys.issuerName;
  cert.IssuerSerial.X509SerialNumber = keys.serialNumber;
  properties.SignedProperties.SignedSignatureProperties.SigningCertificate.Add(cert);

  const format = new x.xml.DataObjectFormat();
  format.ObjectReference = `#${referenceId}`;
  format.MimeType = 'text/xml';
  format.Encoding = 'UTF-8';
  properties.SignedProperties.SignedDataObjectProperties.DataObjectFormats.Add(format);

  await signedXml.Sign({ name: RSA_SHA256.name }, keys.privateKey, doc as never, {
    references: [
      { id: referenceId, uri: '', hash: 'SHA-256', transforms: ['enveloped'] },
      { id: `ReferenceKeyInfo-${uuid}`, uri: `#${keyInfoId}`, hash: 'SHA-256' },
    ],
    signingTime: {
      value: new Date(signingTime.getTime() + CR_OFFSET_MS),
      format: SIGNING_TIME_FORMAT,
    },
    policy: {
      identifier: { value: POLICY_URL },
      hash: 'SHA-256',
      digestValue: POLICY_DIGEST_SHA256,
    },
    signerRole: { claimed: ['Emisor'] },
  });

  const signatureElement = signedXml.GetXml() as unknown as Element | null;
  if (!signatureElement) throw new Error('xadesjs produced no signature element');
  const value = signatureElement.getElementsByTagNameNS(NS_DS, 'SignatureValue').item(0);
  // SignatureValue is outside SignedInfo, so its Id does not affect any digest.
  value?.setAttribute('Id', `SignatureValue-${signatureId}`);

  return insertBeforeRootEnd(xml, root.tagName, serializeXml(signatureElement));
}

/**
 * xadesjs's SignedXml with the steps of xmldsigjs 2.8.8 `SignedXml.Sign`, minus its deep copy of
 * the document: each call signs a private parse of the input, so the copy (about 15% of the
 * signing time) protects nothing. Documents already holding a ds:Signature are refused before
 * this point, so the enveloped-signature transform has nothing to remove from the private copy.
 */
class HaciendaSignedXml extends SignedXml {
  override async Sign(algorithm: { name: string }, key: WebCryptoKey, data: never, options: OptionsXAdES) {
    const root = (data as { documentElement: never }).documentElement;
    const cryptoKey = key as unknown as { algorithm: { name: string; hash?: unknown } };
    const signingAlg = { ...algorithm, ...cryptoKey.algorithm };
    const alg = CryptoConfig.GetSignatureAlgorithm(signingAlg);
    await this.ApplySignOptions(this.XmlSignature, algorithm, key, options);
    await this.DigestReferences(root);
    this.XmlSignature.SignedInfo.SignatureMethod = CryptoConfig.CreateSignatureMethod(alg);
    const signedInfo = this.TransformSignedInfo(root);
    const value = await alg.Sign(signedInfo, key, signingAlg);
    this.Key = key;
    this.Algorithm = algorithm;
    this.XmlSignature.SignatureValue = new Uint8Array(value);
    this.document = (root as { ownerDocument: never }).ownerDocument;
    return this.XmlSignature;
  }
}

/**
 * Inserts `fragment` right before the closing tag of the root element, leaving every other byte
 * of `xml` as it was.
 */
function insertBeforeRootEnd(xml: string, rootName: string, fragment: string): string {
  const closing = `</${rootName}`;
  const at = xml.lastIndexOf(closing);
  const tail = at < 0 ? '' : xml.slice(at + closing.length);
  if (at < 0 || !/^\s*>(?:\s|<!--[\s\S]*?-->)*$/.test(tail)) {
    throw new XmlDocumentError(`Cannot find the closing tag of the root element <${rootName}>`);
  }
  return xml.slice(0, at) + fragment + xml.slice(at);
}
