// What the signer and the verifier share: xadesjs wired to Node (xmldom, xpath and node:crypto's
// WebCrypto, registered once per process), a strict XML parser, and the constants of Hacienda's
// XAdES-EPES profile (NOTES 6.2-6.3).
import { webcrypto } from 'node:crypto';
import { DOMImplementation, DOMParser, XMLSerializer } from '@xmldom/xmldom';
import type { Document, Node } from '@xmldom/xmldom';
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

let registered = false;

/** Registers xmldom, xpath and WebCrypto with xadesjs/xmldsigjs (idempotent). */
export function xades(): typeof xadesjs {
  if (!registered) {
    xadesjs.setNodeDependencies({ DOMParser, XMLSerializer, DOMImplementation, xpath });
    xadesjs.Application.setEngine(
      'NodeJS',
      webcrypto as unknown as Parameters<typeof xadesjs.Application.setEngine>[1],
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

export function serializeXml(node: Node): string {
  return new XMLSerializer().serializeToString(node);
}
