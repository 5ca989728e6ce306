// Minimal, namespace-agnostic reading of a received comprobante (by local name, like Hacienda's
// business rules do once the schema has been checked). Written for the simulator alone so its
// checks do not share a code path with the issuer's XML builder. XML 1.0 end-of-line rules:
// U+0085, U+2028 and U+2029 are kept as the characters they are (xmldom's default is XML 1.1's).
import { DOMParser } from '@xmldom/xmldom';
import type { Element as XmlElement } from '@xmldom/xmldom';

export type { XmlElement };

export class NotWellFormedError extends Error {}

export function parseXml(xml: string): XmlElement {
  const doc = new DOMParser({
    normalizeLineEndings: (source) => source.replace(/\r\n?/g, '\n'),
    onError: (level, msg) => {
      if (level !== 'warning') throw new NotWellFormedError(msg);
    },
  }).parseFromString(xml, 'text/xml');
  const root = doc.documentElement;
  if (!root) throw new NotWellFormedError('no root element');
  return root;
}

export function children(el: XmlElement | null | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  if (!el) return out;
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as XmlElement).localName === name) out.push(n as XmlElement);
  }
  return out;
}

export function child(el: XmlElement | null | undefined, ...path: string[]): XmlElement | null {
  let cur: XmlElement | null | undefined = el;
  for (const name of path) {
    cur = children(cur, name)[0];
    if (!cur) return null;
  }
  return cur ?? null;
}

/** Trimmed text of the element at path, or null when absent. */
export function text(el: XmlElement | null | undefined, ...path: string[]): string | null {
  const c = child(el, ...path);
  return c ? (c.textContent ?? '').trim() : null;
}

/** Every element below `el` (at any depth) with this local name, in document order. */
export function descendants(el: XmlElement | null | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (node: XmlElement) => {
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const e = n as XmlElement;
      if (e.localName === name) out.push(e);
      walk(e);
    }
  };
  if (el) walk(el);
  return out;
}
