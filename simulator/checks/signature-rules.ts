// What Hacienda requires of a signature beyond its cryptography (Hacienda's XAdES-EPES profile, Anexo 2 of v4.4): the v4.4 signature
// policy (identifier and digest), the signer's role, a SigningTime that is neither ahead of the
// official clock nor before the document's FechaEmision, and a certificate issued by a CA Hacienda
// trusts and current at SigningTime. Each is reported as free text, like every signature problem
// (Hacienda does not read the content of a document whose signature it refuses): a signature
// without SignaturePolicyIdentifier gets Hacienda's own "La firma del documento no tiene el Policy
// Id", the others our cause in parentheses.
import { X509Certificate } from 'node:crypto';
import { POLICY_DIGEST_SHA256, POLICY_URL } from '../../hacienda/xades-env.ts';
import type { XadesVerification } from '../../hacienda/verify.ts';
import { SIGNATURE_RULE_TEXTS as T } from './rule-texts.ts';
import { children, descendants, text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';

const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';

export interface SignatureRuleChecks {
  policy: boolean;
  role: boolean;
  signingTime: boolean;
  certificate: boolean;
}

export interface SignatureRuleInput {
  root: XmlElement;
  verification: XadesVerification;
  checks: SignatureRuleChecks;
  /** Certificates of the CAs whose certificates are accepted (parsed once by the caller). */
  trustedCas: readonly X509Certificate[];
  now: number;
  fechaEmision: number | null;
  maxClockSkewMs: number;
}

export function checkSignatureRules(input: SignatureRuleInput): string[] {
  const { root, verification, checks } = input;
  const signature = children(root, 'Signature')[0] ?? null;
  const texts: string[] = [];
  if (checks.policy && descendants(signature, 'SigPolicyId').length === 0) texts.push(T.policyMissing);
  else if (checks.policy && !hasHaciendaPolicy(signature)) texts.push(T.policy);
  if (checks.role) {
    const roles = descendants(signature, 'ClaimedRole').map((e) => (e.textContent ?? '').trim());
    const allowed = root.localName === 'MensajeReceptor' ? ['Emisor', 'Receptor'] : ['Emisor'];
    if (!roles.some((r) => allowed.includes(r))) texts.push(T.role);
  }
  const signedAt = verification.signingTime?.getTime() ?? null;
  if (checks.signingTime) {
    if (signedAt === null) texts.push(T.signingTimeMissing);
    else if (signedAt > input.now + input.maxClockSkewMs) texts.push(T.signingTimeFuture);
    else if (input.fechaEmision !== null && signedAt < input.fechaEmision - input.maxClockSkewMs)
      texts.push(T.signingTimeBeforeIssue);
  }
  if (checks.certificate && verification.signingCertificate) {
    const cert = certificateFacts(verification.signingCertificate, input.trustedCas);
    if (!cert.trusted) texts.push(T.certificateUntrusted);
    else if (!currentAt(cert, signedAt ?? input.now)) texts.push(T.certificateNotCurrent);
  }
  return texts;
}

interface CertificateFacts {
  trusted: boolean;
  validFrom: number;
  validTo: number;
}

// A signer sends thousands of documents under one certificate: what the chain check found is kept
// per certificate (and per list of trusted CAs), not parsed and verified again for each document.
const checkedCertificates = new WeakMap<readonly X509Certificate[], Map<string, CertificateFacts>>();
const MAX_CHECKED_CERTIFICATES = 512;

function certificateFacts(der: Buffer, trustedCas: readonly X509Certificate[]): CertificateFacts {
  let known = checkedCertificates.get(trustedCas);
  if (!known) checkedCertificates.set(trustedCas, (known = new Map()));
  const key = der.toString('base64');
  let facts = known.get(key);
  if (facts) return facts;
  const cert = new X509Certificate(der);
  facts = {
    trusted: trustedCas.some((ca) => issuedBy(cert, ca)),
    validFrom: Date.parse(cert.validFrom),
    validTo: Date.parse(cert.validTo),
  };
  if (known.size >= MAX_CHECKED_CERTIFICATES) known.clear();
  known.set(key, facts);
  return facts;
}

function hasHaciendaPolicy(signature: XmlElement | null): boolean {
  const policyId = descendants(signature, 'SigPolicyId')[0];
  const hash = descendants(signature, 'SigPolicyHash')[0];
  if (!policyId || !hash) return false;
  const method = descendants(hash, 'DigestMethod')[0]?.getAttribute('Algorithm');
  return (
    text(policyId, 'Identifier') === POLICY_URL &&
    method === SHA256 &&
    text(hash, 'DigestValue') === POLICY_DIGEST_SHA256
  );
}

function issuedBy(cert: X509Certificate, ca: X509Certificate): boolean {
  try {
    return cert.checkIssued(ca) && cert.verify(ca.publicKey);
  } catch {
    return false;
  }
}

function currentAt(cert: CertificateFacts, at: number): boolean {
  return cert.validFrom <= at && at <= cert.validTo;
}
