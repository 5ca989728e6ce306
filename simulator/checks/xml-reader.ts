// Namespace-agnostic reading of a received comprobante (by local name, like Hacienda's business
// rules do once the schema has been checked), over the element tree of hacienda/xml-tree.ts (a
// strict XML 1.0 parser: what is not well-formed is refused, XML 1.0 end-of-line rules). It shares
// no code path with the issuer's XML builder.
import { parseXmlTree, XmlTreeError, type XmlElement } from '../../hacienda/xml-tree.ts';

export type { XmlElement };

export class NotWellFormedError extends Error {}

export function parseXml(xml: string): XmlElement {
  try {
    return parseXmlTree(xml);
  } catch (err) {
    if (err instanceof XmlTreeError) throw new NotWellFormedError(err.message);
    throw err;
  }
}

export function children(el: XmlElement | null | undefined, name: string): XmlElement[] {
  return el ? el.children.filter((c) => c.localName === name) : [];
}

export function child(el: XmlElement | null | undefined, ...path: string[]): XmlElement | null {
  let cur: XmlElement | null | undefined = el;
  for (const name of path) {
    cur = cur?.children.find((c) => c.localName === name);
    if (!cur) return null;
  }
  return cur ?? null;
}

/** Trimmed text of the element at path, or null when absent. */
export function text(el: XmlElement | null | undefined, ...path: string[]): string | null {
  const c = child(el, ...path);
  return c ? c.textContent.trim() : null;
}

/** Every element below `el` (at any depth) with this local name, in document order. */
export function descendants(el: XmlElement | null | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (node: XmlElement) => {
    for (const e of node.children) {
      if (e.localName === name) out.push(e);
      walk(e);
    }
  };
  if (el) walk(el);
  return out;
}
