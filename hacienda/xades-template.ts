// Hacienda's XAdES-EPES signature block as string templates: the exact text the xadesjs signer
// (signer.ts) writes, and the C14N 1.0 form of its three signed parts (SignedInfo, KeyInfo,
// SignedProperties) in context. The fast signer fills it in; the fast verifier parses a block by
// matching it against the same template, so what one writes the other reads, and anything not
// written by this template is left to xadesjs.
//
// In context means: inclusive C14N renders on the apex element of a signed subtree every
// namespace in scope there (Hacienda's XAdES-EPES profile, Anexo 2 of v4.4), sorted by prefix, the default namespace first. For a
// signature that is the root's last child that is the root's declarations, plus xmlns:ds from
// ds:Signature, plus xmlns:xades from xades:QualifyingProperties for SignedProperties. Inside the
// subtrees nothing else changes in C14N except empty-element tags (`<a/>` → `<a></a>`) and
// attribute order (Type before URI), which the canonical templates spell out.
import { NS_DS, NS_XADES, POLICY_DIGEST_SHA256, POLICY_URL, SIGNED_PROPERTIES_TYPE } from './xades-env.ts';

const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
/** Costa Rica has kept UTC-6 all year since 1992. */
const CR_OFFSET_MS = -6 * 3600 * 1000;

/** Everything that varies between two signature blocks. Text values are unescaped. */
export interface SignatureFields {
  /** UUID of `Signature-<uuid>`; the KeyInfo, SignedProperties and SignatureValue Ids derive from it. */
  signatureUuid: string;
  /** UUID of the document reference `Reference-<uuid>`. */
  referenceUuid: string;
  documentDigest: string;
  keyInfoDigest: string;
  signedPropertiesDigest: string;
  signatureValue: string;
  /** Base64 DER of the signing certificate. */
  certificate: string;
  modulus: string;
  exponent: string;
  /** `yyyy-mm-ddTHH:MM:ss-06:00`. */
  signingTime: string;
  certificateDigest: string;
  issuerName: string;
  serialNumber: string;
}

/** SigningTime as Hacienda's signers write it: Costa Rica local time with a -06:00 offset. */
export function formatSigningTime(at: Date): string {
  const t = at.getTime();
  if (!Number.isFinite(t)) throw new RangeError('Invalid signing time');
  return `${new Date(t + CR_OFFSET_MS).toISOString().slice(0, 19)}-06:00`;
}

/**
 * The namespace declarations inclusive C14N puts on the apex of a signed subtree: the root's,
 * then xmlns:ds (and xmlns:xades for SignedProperties) as the signature declares them.
 */
export function apexNamespaces(
  rootNamespaces: ReadonlyArray<readonly [string, string]>,
  withXades: boolean,
): string {
  const inScope = new Map<string, string>(rootNamespaces);
  inScope.set('ds', NS_DS);
  if (withXades) inScope.set('xades', NS_XADES);
  const prefixes = [...inScope.keys()].sort();
  let out = '';
  for (const p of prefixes) out += ` ${p ? `xmlns:${p}` : 'xmlns'}="${inScope.get(p)!}"`;
  return out;
}

/** `<name attrs/>` in the document, `<name attrs></name>` in C14N. */
function empty(name: string, attributes: string, canonical: boolean): string {
  return canonical ? `<${name}${attributes}></${name}>` : `<${name}${attributes}/>`;
}

/** ds:SignedInfo: the document text (`apex` null) or its C14N form with `apex` declarations. */
export function signedInfo(f: SignatureFields, apex: string | null): string {
  const c = apex !== null;
  const digestMethod = empty('ds:DigestMethod', ` Algorithm="${SHA256}"`, c);
  const sig = `Signature-${f.signatureUuid}`;
  const propertiesRef = c
    ? `<ds:Reference Type="${SIGNED_PROPERTIES_TYPE}" URI="#SignedProperties-${sig}">`
    : `<ds:Reference URI="#SignedProperties-${sig}" Type="${SIGNED_PROPERTIES_TYPE}">`;
  return (
    `<ds:SignedInfo${apex ?? ''}>` +
    empty('ds:CanonicalizationMethod', ` Algorithm="${C14N}"`, c) +
    empty('ds:SignatureMethod', ` Algorithm="${RSA_SHA256}"`, c) +
    `<ds:Reference Id="Reference-${f.referenceUuid}" URI="">` +
    `<ds:Transforms>${empty('ds:Transform', ` Algorithm="${ENVELOPED}"`, c)}</ds:Transforms>` +
    `${digestMethod}<ds:DigestValue>${f.documentDigest}</ds:DigestValue></ds:Reference>` +
    `<ds:Reference Id="ReferenceKeyInfo-${f.signatureUuid}" URI="#KeyInfoId-${sig}">` +
    `${digestMethod}<ds:DigestValue>${f.keyInfoDigest}</ds:DigestValue></ds:Reference>` +
    propertiesRef +
    `${digestMethod}<ds:DigestValue>${f.signedPropertiesDigest}</ds:DigestValue></ds:Reference>` +
    `</ds:SignedInfo>`
  );
}

/** ds:KeyInfo (certificate and RSA key value); identical in both forms apart from the apex. */
export function keyInfo(f: SignatureFields, apex: string | null): string {
  return (
    `<ds:KeyInfo${apex ?? ''} Id="KeyInfoId-Signature-${f.signatureUuid}">` +
    `<ds:X509Data><ds:X509Certificate>${f.certificate}</ds:X509Certificate></ds:X509Data>` +
    `<ds:KeyValue><ds:RSAKeyValue><ds:Modulus>${f.modulus}</ds:Modulus>` +
    `<ds:Exponent>${f.exponent}</ds:Exponent></ds:RSAKeyValue></ds:KeyValue></ds:KeyInfo>`
  );
}

/** xades:SignedProperties in Hacienda's order (Hacienda's XAdES-EPES profile, Anexo 2 of v4.4). */
export function signedProperties(f: SignatureFields, apex: string | null): string {
  const c = apex !== null;
  const digestMethod = empty('ds:DigestMethod', ` Algorithm="${SHA256}"`, c);
  return (
    `<xades:SignedProperties${apex ?? ''} Id="SignedProperties-Signature-${f.signatureUuid}">` +
    `<xades:SignedSignatureProperties><xades:SigningTime>${f.signingTime}</xades:SigningTime>` +
    `<xades:SigningCertificate><xades:Cert><xades:CertDigest>${digestMethod}` +
    `<ds:DigestValue>${f.certificateDigest}</ds:DigestValue></xades:CertDigest>` +
    `<xades:IssuerSerial><ds:X509IssuerName>${escapeText(f.issuerName, c)}</ds:X509IssuerName>` +
    `<ds:X509SerialNumber>${f.serialNumber}</ds:X509SerialNumber></xades:IssuerSerial>` +
    `</xades:Cert></xades:SigningCertificate>` +
    `<xades:SignaturePolicyIdentifier><xades:SignaturePolicyId><xades:SigPolicyId>` +
    `<xades:Identifier>${POLICY_URL}</xades:Identifier></xades:SigPolicyId>` +
    `<xades:SigPolicyHash>${digestMethod}<ds:DigestValue>${POLICY_DIGEST_SHA256}</ds:DigestValue>` +
    `</xades:SigPolicyHash></xades:SignaturePolicyId></xades:SignaturePolicyIdentifier>` +
    `<xades:SignerRole><xades:ClaimedRoles><xades:ClaimedRole>Emisor</xades:ClaimedRole>` +
    `</xades:ClaimedRoles></xades:SignerRole></xades:SignedSignatureProperties>` +
    `<xades:SignedDataObjectProperties>` +
    `<xades:DataObjectFormat ObjectReference="#Reference-${f.referenceUuid}">` +
    `<xades:MimeType>text/xml</xades:MimeType><xades:Encoding>UTF-8</xades:Encoding>` +
    `</xades:DataObjectFormat></xades:SignedDataObjectProperties></xades:SignedProperties>`
  );
}

/** The whole ds:Signature element as it is inserted before the root's closing tag. */
export function signatureBlock(f: SignatureFields): string {
  const sig = `Signature-${f.signatureUuid}`;
  return (
    `<ds:Signature Id="${sig}" xmlns:ds="${NS_DS}">` +
    signedInfo(f, null) +
    `<ds:SignatureValue Id="SignatureValue-${sig}">${f.signatureValue}</ds:SignatureValue>` +
    keyInfo(f, null) +
    `<ds:Object><xades:QualifyingProperties Target="#${sig}" xmlns:xades="${NS_XADES}">` +
    signedProperties(f, null) +
    `</xades:QualifyingProperties></ds:Object></ds:Signature>`
  );
}

/**
 * Escapes character data: `&`, `<`, `>` as both xmldom's serializer and C14N write them, and a
 * CR (which a certificate name may hold) as `&#13;` in the document, as signer.ts's serializer
 * writes it, or `&#xD;` in the canonical form. Characters XML 1.0 cannot carry never get here
 * (fast-signer.ts declines such names, and the parser below does not match them).
 */
export function escapeText(value: string, canonical = false): string {
  return value.replace(/[&<>\r]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : canonical ? '&#xD;' : '&#13;',
  );
}

function unescapeText(value: string): string {
  return value.replace(/&(amp|lt|gt|#13);/g, (_, n: string) =>
    n === 'amp' ? '&' : n === 'lt' ? '<' : n === 'gt' ? '>' : '\r',
  );
}

// ---- Parsing: the template with each field replaced by a capture group ----

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const SHA256_BASE64 = '[A-Za-z0-9+/]{43}=';
const BASE64 = '[A-Za-z0-9+/]+={0,2}';

/** What each field may look like in a block this module wrote; anything else is not ours. */
const FIELD_PATTERNS: Record<keyof SignatureFields, string> = {
  signatureUuid: UUID,
  referenceUuid: UUID,
  documentDigest: SHA256_BASE64,
  keyInfoDigest: SHA256_BASE64,
  signedPropertiesDigest: SHA256_BASE64,
  signatureValue: BASE64,
  certificate: BASE64,
  modulus: BASE64,
  exponent: BASE64,
  signingTime: '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}-06:00',
  certificateDigest: SHA256_BASE64,
  // Escaped text as escapeText writes it: XML 1.0 characters except the markup ones and a literal
  // CR (a parser would read it as LF, so the template's canonical form would be wrong), and only
  // the four references escapeText writes.
  issuerName:
    '(?:[\\t\\n\\u0020-\\u0025\\u0027-\\u003B\\u003D\\u003F-\\uD7FF\\uE000-\\uFFFD]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|&amp;|&lt;|&gt;|&#13;)*',
  serialNumber: '[1-9][0-9]{0,79}|0',
};

const FIELD_NAMES = Object.keys(FIELD_PATTERNS) as (keyof SignatureFields)[];

/**
 * A sticky regular expression for the block, derived from signatureBlock() itself: the template
 * is rendered with marker values (`~~<n>~~`; the template holds no `~`), escaped, and each
 * marker becomes a named group the first time and a back-reference afterwards (the UUIDs appear
 * several times and must agree).
 */
const BLOCK_PATTERN: RegExp = (() => {
  const markers = Object.fromEntries(
    FIELD_NAMES.map((n, i) => [n, `~~${i}~~`]),
  ) as unknown as SignatureFields;
  const text = signatureBlock(markers).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const seen = new Set<string>();
  const source = text.replace(/~~(\d+)~~/g, (_, index: string) => {
    const name = FIELD_NAMES[Number(index)]!;
    if (seen.has(name)) return `\\k<${name}>`;
    seen.add(name);
    return `(?<${name}>${FIELD_PATTERNS[name]})`;
  });
  return new RegExp(source, 'y');
})();

/**
 * Reads a signature block written by signatureBlock() starting at `from`; returns its fields and
 * the index just after `</ds:Signature>`, or null when the text there is anything else.
 */
export function parseSignatureBlock(
  xml: string,
  from: number,
): { fields: SignatureFields; end: number } | null {
  BLOCK_PATTERN.lastIndex = from;
  const m = BLOCK_PATTERN.exec(xml);
  if (!m?.groups) return null;
  const g = m.groups as unknown as SignatureFields;
  const fields: SignatureFields = { ...g, issuerName: unescapeText(g.issuerName) };
  return { fields, end: BLOCK_PATTERN.lastIndex };
}
