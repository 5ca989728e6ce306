// The XAdES-EPES signature policy of a received comprobante (Anexo 2 of v4.4): the
// signed properties of its signature must name Hacienda's v4.4 policy (SignaturePolicyId, not
// SignaturePolicyImplied) with its published SHA-256 digest. Hacienda refuses a document whose
// signature has no policy ("La firma del documento no tiene el Policy Id"); an older policy (the
// v4.1-v4.3 DGT-R-48-2016 PDF with a SHA-1 digest) or another digest is not the v4.4 policy.
//
// Identifiers: the URL every current signer writes (`/xml-schemas/`, percent-encoded) and the one
// printed in Anexo 2 (`/xmlschemas/`, which the CDN answers with 403), compared after percent-
// decoding; the digest is compared as base64 bytes. The signature itself is verify.ts's concern:
// this reads the policy of a document whose signature already verified.
import type { Element } from '@xmldom/xmldom';
import { NS_DS, NS_XADES, POLICY_DIGEST_SHA256, POLICY_URL, parseXmlStrict } from './xades-env.ts';

/** Why a signature's policy is not Hacienda's v4.4 one: Spanish first, English second. */
export interface PolicyProblem {
  es: string;
  en: string;
}

const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
/** Anexo 2 prints the policy under /xmlschemas/ (no hyphen); the file lives under /xml-schemas/. */
const ACCEPTED_IDENTIFIERS = new Set(
  [POLICY_URL, POLICY_URL.replace('/xml-schemas/', '/xmlschemas/')].map((u) => decodeURI(u)),
);

/** The v4.4 policy's problem with the document's (single) signature, or null when it follows it. */
export function signaturePolicyProblem(xml: string): PolicyProblem | null {
  const doc = parseXmlStrict(xml);
  // The signed properties verify.ts checked: the first QualifyingProperties of the signature.
  const signature = doc.getElementsByTagNameNS(NS_DS, 'Signature').item(0);
  const qualifying = signature ? first(signature, NS_XADES, 'QualifyingProperties') : null;
  const properties = qualifying ? child(qualifying, NS_XADES, 'SignedProperties') : null;
  const signed = properties ? child(properties, NS_XADES, 'SignedSignatureProperties') : null;
  const identifier = signed ? child(signed, NS_XADES, 'SignaturePolicyIdentifier') : null;
  const policy = identifier ? child(identifier, NS_XADES, 'SignaturePolicyId') : null;
  if (!policy)
    return {
      es:
        'La firma del documento no tiene el Policy Id: le falta la política de firma v4.4 de Hacienda ' +
        '(SignaturePolicyIdentifier/SignaturePolicyId)',
      en: "The document's signature has no Policy Id: it does not name Hacienda's v4.4 signature policy (SignaturePolicyIdentifier/SignaturePolicyId)",
    };
  const named = (first(policy, NS_XADES, 'Identifier')?.textContent ?? '').trim();
  if (!ACCEPTED_IDENTIFIERS.has(safeDecode(named)))
    return {
      es: `La firma sigue otra política (${named || 'sin identificador'}), no la v4.4 de Hacienda (${POLICY_URL})`,
      en: `The signature follows another policy (${named || 'no identifier'}), not Hacienda's v4.4 one (${POLICY_URL})`,
    };
  const hash = first(policy, NS_XADES, 'SigPolicyHash');
  const algorithm = hash ? (child(hash, NS_DS, 'DigestMethod')?.getAttribute('Algorithm') ?? '') : '';
  const value = (hash ? (child(hash, NS_DS, 'DigestValue')?.textContent ?? '') : '').replace(/\s/g, '');
  if (algorithm !== SHA256 || !sameBase64(value, POLICY_DIGEST_SHA256)) {
    const got = `${ALGORITHM_NAMES[algorithm] ?? algorithm} ${value}`.trim() || '—';
    return {
      es: `El resumen de la política de firma (SigPolicyHash) no es el de la política v4.4 de Hacienda: se esperaba SHA-256 ${POLICY_DIGEST_SHA256} y se recibió ${got}`,
      en: `The signature policy digest (SigPolicyHash) is not that of Hacienda's v4.4 policy: expected SHA-256 ${POLICY_DIGEST_SHA256}, got ${got}`,
    };
  }
  return null;
}

function safeDecode(uri: string): string {
  try {
    return decodeURI(uri);
  } catch {
    return uri;
  }
}

function sameBase64(a: string, b: string): boolean {
  return a !== '' && Buffer.from(a, 'base64').equals(Buffer.from(b, 'base64'));
}

const ALGORITHM_NAMES: Record<string, string> = {
  [SHA256]: 'SHA-256',
  'http://www.w3.org/2000/09/xmldsig#sha1': 'SHA-1',
};

function child(parent: Element, ns: string, localName: string): Element | null {
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    const e = node as Element;
    if (node.nodeType === 1 && e.namespaceURI === ns && e.localName === localName) return e;
  }
  return null;
}

function first(parent: Element, ns: string, localName: string): Element | null {
  return parent.getElementsByTagNameNS(ns, localName).item(0);
}
