// What the signer and the verifier share: xadesjs wired to Node (xmldom, xpath and node:crypto's
// WebCrypto, registered once per process), a strict XML parser, and the constants of Hacienda's
// XAdES-EPES profile (NOTES 6.2-6.3).
//
// The WebCrypto engine handed to xadesjs is node:crypto's, except that digest, RSA sign and RSA
// verify run synchronously through node:crypto's one-shot functions: Node's SubtleCrypto queues
// each call on the libuv thread pool, and for a signature's four small digests and one RSA
// operation the round trips cost more than the work (about 1 ms per document).
import { createHash, KeyObject, sign as nodeSign, verify as nodeVerify, webcrypto } from 'node:crypto';
import { DOMImplementation, DOMParser, XMLSerializer } from '@xmldom/xmldom';
import type { Document, Element, Node } from '@xmldom/xmldom';
import * as xadesjs from 'xadesjs';
import xpath from 'xpath';

export const NS_DS = 'http://www.w3.org/2000/09/xmldsig#';
export const NS_XADES = 'http://uri.etsi.org/01903/v1.3.2#';
export const SIGNED_PROPERTIES_TYPE = 'http://uri.etsi.org/01903#SignedProperties';

/** Anexo 2 (v4.4) signature policy, with the digest Hacienda publishes for the PDF. */
export const POLICY_URL =
  'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/Resoluci%C3%B3n_General_sobre_disposiciones_t%C3%A9cnicas_comprobantes_electr%C3%B3nicos_para_efectos_tributarios.pdf';
export const POLICY_DIGEST_SHA256 = 'DWxin1xWOeI8OuWQXazh4VjLWAaCLAA954em7DMh0h8=';

export type WebCryptoKey = webcrypto.CryptoKey;

const NODE_HASHES: Record<string, string> = {
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};

type Subtle = typeof webcrypto.subtle;
type AlgorithmLike = string | { name: string };
type BytesLike = ArrayBuffer | ArrayBufferView;

function bytes(data: BytesLike): Buffer {
  return ArrayBuffer.isView(data)
    ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    : Buffer.from(data);
}

function arrayBuffer(buf: Buffer): ArrayBuffer {
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
}

const keyObjects = new WeakMap<WebCryptoKey, KeyObject>();

/** Hash name of an RSASSA-PKCS1-v1_5 key, or null when node:crypto's one-shot call does not apply. */
function rsaPkcs1Hash(key: WebCryptoKey): string | null {
  const algorithm = key.algorithm as { name: string; hash?: { name: string } };
  if (algorithm.name !== 'RSASSA-PKCS1-v1_5' || !algorithm.hash) return null;
  return NODE_HASHES[algorithm.hash.name] ?? null;
}

function keyObject(key: WebCryptoKey): KeyObject {
  let k = keyObjects.get(key);
  if (!k) {
    k = KeyObject.from(key);
    keyObjects.set(key, k);
  }
  return k;
}

function syncEngine(): webcrypto.Crypto {
  const subtle = webcrypto.subtle;
  const overrides: Partial<Record<keyof Subtle, unknown>> = {
    digest: (algorithm: AlgorithmLike, data: BytesLike) => {
      const name = typeof algorithm === 'string' ? algorithm : algorithm.name;
      const hash = NODE_HASHES[name.toUpperCase()];
      if (!hash) return subtle.digest(algorithm, data);
      return Promise.resolve(arrayBuffer(createHash(hash).update(bytes(data)).digest()));
    },
    sign: (algorithm: AlgorithmLike, key: WebCryptoKey, data: BytesLike) => {
      const hash = rsaPkcs1Hash(key);
      if (!hash) return subtle.sign(algorithm, key, data);
      return Promise.resolve(arrayBuffer(nodeSign(hash, bytes(data), keyObject(key))));
    },
    verify: (algorithm: AlgorithmLike, key: WebCryptoKey, signature: BytesLike, data: BytesLike) => {
      const hash = rsaPkcs1Hash(key);
      if (!hash) return subtle.verify(algorithm, key, signature, data);
      return Promise.resolve(nodeVerify(hash, bytes(data), keyObject(key), bytes(signature)));
    },
  };
  const fast = new Proxy(subtle, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in overrides) return overrides[prop as keyof Subtle];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    subtle: fast,
    getRandomValues: webcrypto.getRandomValues.bind(webcrypto),
    randomUUID: webcrypto.randomUUID.bind(webcrypto),
  } as unknown as webcrypto.Crypto;
}

let registered = false;

/** Registers xmldom, xpath and WebCrypto with xadesjs/xmldsigjs (idempotent). */
export function xades(): typeof xadesjs {
  if (!registered) {
    xadesjs.setNodeDependencies({ DOMParser, XMLSerializer, DOMImplementation, xpath });
    xadesjs.Application.setEngine(
      'NodeJS',
      syncEngine() as unknown as Parameters<typeof xadesjs.Application.setEngine>[1],
    );
    registered = true;
  }
  return xadesjs;
}

/** A document that cannot be signed or verified as given. */
export class XmlDocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlDocumentError';
  }
}

/**
 * Parses XML, failing on any well-formedness error (xmldom otherwise recovers silently) and on
 * a DOCTYPE: entity declarations would let the signed bytes and the signed content diverge.
 */
export function parseXmlStrict(xml: string): Document {
  if (/<!DOCTYPE/i.test(xml)) throw new XmlDocumentError('XML with a DOCTYPE is not accepted');
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new XmlDocumentError(`Malformed XML: ${message}`);
    },
  });
  let doc: Document;
  try {
    doc = parser.parseFromString(xml, 'application/xml');
  } catch (err) {
    if (err instanceof XmlDocumentError) throw err;
    throw new XmlDocumentError(`Malformed XML: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!doc.documentElement) throw new XmlDocumentError('XML has no root element');
  return doc;
}

const NS_XML = 'http://www.w3.org/XML/1998/namespace';

/**
 * Inclusive C14N carries xml:lang/xml:space/xml:base of ancestors into a signed subtree (KeyInfo,
 * SignedProperties); xadesjs does not, so with such an attribute on the root its digests disagree
 * with every conforming verifier. Comprobantes never carry one; refuse them.
 */
export function assertNoInheritableXmlAttributes(root: Element): void {
  for (let i = 0; i < root.attributes.length; i++) {
    const attr = root.attributes.item(i);
    if (attr?.namespaceURI === NS_XML) {
      throw new XmlDocumentError(
        `The root element carries ${attr.name}, which cannot be signed consistently`,
      );
    }
  }
}

export function serializeXml(node: Node): string {
  return new XMLSerializer().serializeToString(node);
}
