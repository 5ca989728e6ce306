// XAdES-EPES signing without a DOM, for the documents our own builder writes: the signature
// block is filled in from string templates (xades-template.ts), the document digest is taken
// over the canonical form read straight from the text (canonical-document.ts), and the one RSA
// operation runs through node:crypto with a KeyObject made once per signer. The result is byte
// for byte what the xadesjs path of signer.ts writes for the same ids and time (tested), at a
// fraction of the cost: one scan of the document, three SHA-256 and one RSA-2048 signature.
//
// signFast returns null whenever the document is not in the shape canonical-document.ts
// understands; createSigner (signer.ts) then signs it through xadesjs, which also refuses what
// cannot be signed (malformed XML, DOCTYPE, outside PIs, xml:* on the root, signed documents).
import { createPrivateKey, hash, sign as rsaSign, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { canonicalizeDocument } from './canonical-document.ts';
import { certificateInfo } from './signing-key.ts';
import type { SigningMaterial } from './signing-key.ts';
import {
  apexNamespaces,
  formatSigningTime,
  keyInfo,
  signatureBlock,
  signedInfo,
  signedProperties,
} from './xades-template.ts';
import type { SignatureFields } from './xades-template.ts';

/** The UUIDs of one signature: `Signature-<signature>` and `Reference-<reference>`. */
export interface SignatureIds {
  signature: string;
  reference: string;
}

/** Everything about the key and certificate that is the same for every document. */
export interface FastSigningKey {
  privateKey: KeyObject;
  /** The certificate part of SignatureFields, computed once. */
  fields: Pick<
    SignatureFields,
    'certificate' | 'modulus' | 'exponent' | 'certificateDigest' | 'issuerName' | 'serialNumber'
  >;
}

/** XML 1.0 characters (surrogates paired): what escapeText can write for both signers. */
const XML_TEXT = /^(?:[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;

/**
 * Prepares the fast path for one key, or returns null when the certificate cannot be written by
 * the template (an issuer name with characters XML 1.0 cannot carry, which the xadesjs path then
 * refuses too, or a key that is not RSA).
 */
export function fastSigningKey(material: SigningMaterial): FastSigningKey | null {
  const certificate = material.certificateChain[0];
  if (!certificate) return null;
  const info = certificateInfo(certificate);
  if (!XML_TEXT.test(info.issuer)) return null;
  const jwk = new X509Certificate(certificate).publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'RSA' || !jwk.n || !jwk.e) return null;
  return {
    privateKey: createPrivateKey({ key: material.privateKeyPkcs8, format: 'der', type: 'pkcs8' }),
    fields: {
      certificate: certificate.toString('base64'),
      modulus: Buffer.from(jwk.n, 'base64url').toString('base64'),
      exponent: Buffer.from(jwk.e, 'base64url').toString('base64'),
      certificateDigest: sha256(certificate),
      issuerName: info.issuer,
      serialNumber: info.serialNumberDecimal,
    },
  };
}

/**
 * Signs `xml` (enveloped, the signature as the root's last child, every input byte kept), or
 * returns null when the document is not one whose canonical form can be read from its text.
 */
export function signFast(
  xml: string,
  signingTime: Date,
  key: FastSigningKey,
  ids: SignatureIds,
): string | null {
  const doc = canonicalizeDocument(xml);
  if (!doc) return null;
  const f: SignatureFields = {
    ...key.fields,
    signatureUuid: ids.signature,
    referenceUuid: ids.reference,
    signingTime: formatSigningTime(signingTime),
    documentDigest: sha256(doc.canonical),
    keyInfoDigest: '',
    signedPropertiesDigest: '',
    signatureValue: '',
  };
  const dsApex = apexNamespaces(doc.namespaces, false);
  f.keyInfoDigest = sha256(keyInfo(f, dsApex));
  f.signedPropertiesDigest = sha256(signedProperties(f, apexNamespaces(doc.namespaces, true)));
  f.signatureValue = rsaSign('sha256', Buffer.from(signedInfo(f, dsApex), 'utf8'), key.privateKey).toString(
    'base64',
  );
  return xml.slice(0, doc.rootCloseStart) + signatureBlock(f) + xml.slice(doc.rootCloseStart);
}

/** Base64 SHA-256 of `data` (a string hashed as UTF-8), with node:crypto's one-shot hash. */
function sha256(data: string | Buffer): string {
  return hash('sha256', data, 'base64');
}
