// What the signer and the verifier share: xadesjs wired to Node (xmldom, xpath and node:crypto's
// WebCrypto, registered once per process), a strict XML 1.0 parser, a serializer whose output
// parses back to the same text, and the constants of Hacienda's XAdES-EPES profile (Anexo 2 of v4.4).
//
// XML 1.0, not 1.1: xmldom's default end-of-line handling is XML 1.1's, which also turns U+0085,
// U+2028 and U+2029 into line feeds (and so into spaces inside attribute values). Comprobantes are
// XML 1.0 documents, where those are ordinary characters: a parser that rewrites them digests
// other text than xmlsec1, Hacienda or any XML 1.0 verifier, so a correct signature over a line
// detail holding U+2028 would fail and a document whose U+2028 was replaced by a line feed would
// pass. Every DOM here (the signer's, the verifier's, and the ones xadesjs makes internally) is
// built by Xml10DOMParser.
//
// The WebCrypto engine handed to xadesjs is node:crypto's, except that digest, RSA sign and RSA
// verify run synchronously through node:crypto's one-shot functions: Node's SubtleCrypto queues
// each call on the libuv thread pool, and for a signature's four small digests and one RSA
// operation the round trips cost more than the work (about 1 ms per document).
import { createHash, KeyObject, sign as nodeSign, verify as nodeVerify, webcrypto } from 'node:crypto';
import { DOMImplementation, DOMParser, XMLSerializer } from '@xmldom/xmldom';
import type { Document, DOMParserOptions, Element, Node } from '@xmldom/xmldom';
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

/**
 * XML 1.0 end-of-line handling (§2.11): CRLF and a lone CR become LF, nothing else changes
 * (U+0085, U+2028 and U+2029 stay; they are line ends only in XML 1.1).
 */
export function normalizeXml10LineEndings(source: string): string {
  return source.replace(/\r\n?/g, '\n');
}

/** xmldom's DOMParser with XML 1.0 end-of-line handling unless told otherwise. */
export class Xml10DOMParser extends DOMParser {
  constructor(options: DOMParserOptions = {}) {
    super({ normalizeLineEndings: normalizeXml10LineEndings, ...options });
  }
}

let registered = false;

/** Registers xmldom, xpath and WebCrypto with xadesjs/xmldsigjs (idempotent). */
export function xades(): typeof xadesjs {
  if (!registered) {
    xadesjs.setNodeDependencies({ DOMParser: Xml10DOMParser, XMLSerializer, DOMImplementation, xpath });
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
  const parser = new Xml10DOMParser({
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

/**
 * Serializes a node so that an XML 1.0 parser reads back the same characters. xmldom writes a CR
 * in character data as itself, which parsers turn into LF; it is written as `&#13;` instead (in
 * attribute values xmldom already writes `&#13;`, `&#10;` and `&#9;`). Characters XML 1.0 cannot
 * carry at all are refused: whatever a signature covers must survive being sent.
 */
export function serializeXml(node: Node): string {
  const text = new XMLSerializer().serializeToString(node);
  const bad = INVALID_XML_CHAR.exec(text);
  if (bad) {
    const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw new XmlDocumentError(`U+${code} cannot be written in an XML 1.0 document`);
  }
  return text.includes('\r') ? text.replace(/\r/g, '&#13;') : text;
}

/** Characters outside XML 1.0's Char production (CR, LF and tab are allowed). */
const INVALID_XML_CHAR =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
