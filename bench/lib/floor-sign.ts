// The floor's signing part: what a XAdES-EPES signature of one real document cannot avoid, in
// raw node:crypto on one core: the SHA-256 digests of the document without its signature, of the
// KeyInfo, of the SignedProperties and of the certificate (its CertDigest), and one RSA-2048
// signature of the SignedInfo (which hashes it too). The parts are cut from a signed document
// of this run, so the sizes are the real ones; their canonical form is not computed (that is the
// signing path's own work, above the floor).
import { createHash, createPrivateKey, sign as rsaSign } from 'node:crypto';
import { paced } from './floor-paced.ts';
import { round } from './http-load.ts';
import { ownCpuMs } from './proc-stats.ts';

export interface SignParts {
  document: Buffer;
  signedInfo: Buffer;
  keyInfo: Buffer;
  signedProperties: Buffer;
  certificate: Buffer;
}

export interface SignFloor {
  cpu_ms_per_invoice: number;
  signatures: number;
  seconds: number;
  bytes: Record<keyof SignParts, number>;
}

function element(xml: string, name: string): string {
  const m = new RegExp(`<([\\w-]+:)?${name}[\\s>][\\s\\S]*?</\\1?${name}>`).exec(xml);
  if (!m) throw new Error(`the signed document has no ${name}`);
  return m[0];
}

/** The parts a signature digests, cut from a signed document (XAdES-EPES, enveloped). */
export function signParts(signedXml: string): SignParts {
  const signature = element(signedXml, 'Signature');
  const certificate = /<(?:[\w-]+:)?X509Certificate>([^<]+)</.exec(signature)?.[1];
  if (!certificate) throw new Error('the signed document has no X509Certificate');
  return {
    document: Buffer.from(signedXml.replace(signature, ''), 'utf8'),
    signedInfo: Buffer.from(element(signature, 'SignedInfo'), 'utf8'),
    keyInfo: Buffer.from(element(signature, 'KeyInfo'), 'utf8'),
    signedProperties: Buffer.from(element(signature, 'SignedProperties'), 'utf8'),
    certificate: Buffer.from(certificate.replace(/\s+/g, ''), 'base64'),
  };
}

/** One document's digests and signature, with this key. */
function signer(parts: SignParts, privateKeyPkcs8: Buffer): () => void {
  const key = createPrivateKey({ key: privateKeyPkcs8, format: 'der', type: 'pkcs8' });
  return () => {
    for (const b of [parts.document, parts.keyInfo, parts.signedProperties, parts.certificate])
      createHash('sha256').update(b).digest();
    rsaSign('sha256', parts.signedInfo, key);
  };
}

/** Digests and one signature per document, back to back for ~`seconds`; CPU of this process. */
export function measureSignFloor(parts: SignParts, privateKeyPkcs8: Buffer, seconds: number): SignFloor {
  const once = signer(parts, privateKeyPkcs8);
  const warmEnd = performance.now() + 200;
  while (performance.now() < warmEnd) once();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let n = 0;
  while (performance.now() < end) {
    once();
    n++;
  }
  const ms = ownCpuMs(cpu0);
  return {
    cpu_ms_per_invoice: round(ms / n, 4),
    signatures: n,
    seconds: round((performance.now() - t0) / 1000, 2),
    bytes: {
      document: parts.document.length,
      signedInfo: parts.signedInfo.length,
      keyInfo: parts.keyInfo.length,
      signedProperties: parts.signedProperties.length,
      certificate: parts.certificate.length,
    },
  };
}

/** The same work for `invoices` documents, one at a time, `rate` a second; CPU ms per document. */
export async function measureSignFloorPaced(
  parts: SignParts,
  privateKeyPkcs8: Buffer,
  invoices: number,
  rate: number,
): Promise<number> {
  const once = signer(parts, privateKeyPkcs8);
  once();
  const cpu0 = process.cpuUsage();
  await paced(invoices, rate, once);
  return round(ownCpuMs(cpu0) / invoices, 4);
}
