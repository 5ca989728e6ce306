// The canonical form of a comprobante computed from its text, without a DOM: inclusive C14N 1.0
// (without comments) of the document, which is what the signature's document reference
// (URI="" + enveloped-signature) digests once the signature itself is taken out.
//
// Why this is safe: the builder (hacienda/xml/writer.ts) writes documents that are almost their
// own canonical form: UTF-8, an XML declaration (which C14N drops), namespace declarations only
// on the root, attributes in double quotes, no comments, processing instructions, CDATA or DOCTYPE,
// no empty-element tags, text escaped with &amp; &lt; &gt;. This module reads the text with a
// strict one-pass scanner that accepts only that shape and proves well-formedness on the way
// (matching tags, legal names and characters, known references, unique attributes). For such a
// document the canonical bytes are the root element's own bytes, except for a few rewrites C14N
// prescribes and the scanner applies: character references in their C14N spelling (&#13; →
// &#xD;, &#10; → &#xA; in attributes, &gt; → > in attributes, a literal > in text → &gt;) and
// attributes in C14N order (namespace declarations by prefix, then attributes by name).
//
// Anything else returns null and the caller falls back to the DOM-based xadesjs path: comments,
// PIs, CDATA, DOCTYPE, `<a/>`, single-quoted or whitespace-laden tags, a literal CR, tab or line
// feed inside an attribute value, prefixed elements or attributes (so no ds:Signature and no
// xml:* attribute can be present), namespace declarations below the root, an empty, relative,
// ds-shadowing or xades namespace declaration, a default namespace equal to xmldsig's, names
// outside ASCII, or text after the root. Correctness never depends on the input being ours:
// a document this scanner does not fully understand is simply not handled here.

import { NS_DS, NS_XADES } from './xades-env.ts';

export interface CanonicalDocument {
  /** The C14N 1.0 octets of the document, as a string (hash it as UTF-8). */
  canonical: string;
  /** Index of the root's closing tag `</name>` in the input (where an enveloped signature goes). */
  rootCloseStart: number;
  /** The root's namespace declarations, prefix '' for the default namespace, C14N-escaped values. */
  namespaces: ReadonlyArray<readonly [prefix: string, value: string]>;
}

const DECLARATION =
  /<\?xml version=(["'])1\.0\1(?: encoding=(["'])(?:UTF|utf)-8\2)?(?: standalone=(["'])(?:yes|no)\3)?[ \t\n]*\?>/y;
const NAME = /[A-Za-z_][A-Za-z0-9._-]*/y;
/** ` name="value"`; a value never holds `<` or `"`; references and controls are checked apart. */
const ATTRIBUTE = / ([A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?)="([^"<]*)"/y;
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));/y;
/** Any code unit outside tab, LF and U+0020..U+FFFD minus surrogates (CR is refused: see header). */
const SUSPICIOUS_CHAR = /[^\t\n\u0020-\uD7FF\uE000-\uFFFD]/g;
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NAMED: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39 };

const LT = 60;
const GT = 62;
const AMP = 38;
const SLASH = 47;
const SPACE = 32;

/** Returns the document's C14N form, or null when the text is not in the shape described above. */
export function canonicalizeDocument(xml: string): CanonicalDocument | null {
  if (!hasOnlyXmlChars(xml)) return null;
  let i = 0;
  if (xml.startsWith('<?xml', 0)) {
    DECLARATION.lastIndex = 0;
    if (!DECLARATION.test(xml)) return null;
    i = DECLARATION.lastIndex;
  }
  i = skipWhitespace(xml, i);
  if (xml.charCodeAt(i) !== LT) return null;

  const rootStart = i;
  const stack: string[] = [];
  const parts: string[] = [];
  let copied = rootStart;
  let namespaces: [string, string][] = [];
  const splice = (from: number, to: number, replacement: string): void => {
    parts.push(xml.slice(copied, from), replacement);
    copied = to;
  };

  for (;;) {
    // Here xml[i] is '<'.
    if (xml.charCodeAt(i + 1) === SLASH) {
      const name = stack.pop();
      if (name === undefined || !xml.startsWith(name, i + 2) || xml.charCodeAt(i + 2 + name.length) !== GT) {
        return null;
      }
      if (stack.length === 0) {
        const rootEnd = i + 3 + name.length;
        if (skipWhitespace(xml, rootEnd) !== xml.length) return null;
        parts.push(xml.slice(copied, rootEnd));
        return { canonical: parts.join(''), rootCloseStart: i, namespaces };
      }
      i += 3 + name.length;
    } else {
      NAME.lastIndex = i + 1;
      const name = NAME.exec(xml)?.[0];
      if (name === undefined) return null;
      const tag = readAttributes(xml, i + 1 + name.length, stack.length === 0);
      if (!tag) return null;
      if (stack.length === 0) namespaces = tag.namespaces;
      if (tag.canonical !== null) {
        const canonicalTag = `<${name}${tag.canonical}>`;
        if (canonicalTag !== xml.slice(i, tag.end)) splice(i, tag.end, canonicalTag);
      }
      stack.push(name);
      i = tag.end;
    }

    // Character data up to the next tag.
    const next = xml.indexOf('<', i);
    if (next < 0) return null;
    for (let k = i; k < next; k++) {
      const c = xml.charCodeAt(k);
      if (c === GT) {
        // A literal '>' is legal text unless it ends ']]>'; C14N writes it as &gt;.
        if (k >= i + 2 && xml.charCodeAt(k - 1) === 93 && xml.charCodeAt(k - 2) === 93) return null;
        splice(k, k + 1, '&gt;');
      } else if (c === AMP) {
        const ref = readReference(xml, k);
        if (!ref) return null;
        const canonical = escapeTextChar(ref.codePoint);
        if (canonical !== xml.slice(k, ref.end)) splice(k, ref.end, canonical);
        k = ref.end - 1;
      }
    }
    i = next;
  }
}

interface Tag {
  /** Index just after the tag's '>'. */
  end: number;
  /** The attribute part of the canonical start tag, or null when the text already is. */
  canonical: string | null;
  namespaces: [string, string][];
}

function readAttributes(xml: string, from: number, isRoot: boolean): Tag | null {
  let j = from;
  const namespaces: [string, string][] = [];
  const attributes: [string, string][] = [];
  let rewrite = false;
  while (xml.charCodeAt(j) === SPACE) {
    ATTRIBUTE.lastIndex = j;
    const m = ATTRIBUTE.exec(xml);
    if (!m) return null;
    const name = m[1]!;
    const raw = m[2]!;
    j = ATTRIBUTE.lastIndex;
    const value = canonicalAttributeValue(raw);
    if (value === null) return null;
    if (value !== raw) rewrite = true;
    if (name === 'xmlns' || name.startsWith('xmlns:')) {
      if (!isRoot) return null;
      const prefix = name === 'xmlns' ? '' : name.slice(6);
      if (!acceptableNamespace(prefix, value)) return null;
      // Declarations come before attributes in C14N.
      if (attributes.length > 0) rewrite = true;
      namespaces.push([prefix, value]);
    } else {
      if (name.includes(':')) return null;
      attributes.push([name, value]);
    }
  }
  if (xml.charCodeAt(j) !== GT) return null;
  // C14N order: namespace declarations by prefix (default first), then attributes by name; the
  // input order is kept when it already is that order. Equal neighbours are duplicates.
  if (!sortedUnique(namespaces) || !sortedUnique(attributes)) {
    namespaces.sort(byName);
    attributes.sort(byName);
    if (!sortedUnique(namespaces) || !sortedUnique(attributes)) return null;
    rewrite = true;
  }
  let canonical: string | null = null;
  if (rewrite) {
    canonical = '';
    for (const [prefix, value] of namespaces)
      canonical += ` ${prefix ? `xmlns:${prefix}` : 'xmlns'}="${value}"`;
    for (const [name, value] of attributes) canonical += ` ${name}="${value}"`;
  }
  return { end: j + 1, canonical, namespaces };
}

/**
 * Only absolute namespace names, no empty default (`xmlns=""`), no declaration that would put
 * document elements in xmldsig's namespace, and `ds`/`xades` only for their XAdES meaning, so
 * the signature's own declarations never have to be reconciled with the document's.
 */
function acceptableNamespace(prefix: string, value: string): boolean {
  if (!ABSOLUTE_URI.test(value) || value.includes('&')) return false;
  if (prefix === '') return value !== NS_DS && value !== NS_XADES;
  if (prefix === 'xml' || prefix === 'xmlns' || prefix === 'xades') return false;
  if (prefix === 'ds') return value === NS_DS;
  return true;
}

function byName(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function sortedUnique(list: readonly (readonly [string, string])[]): boolean {
  for (let k = 1; k < list.length; k++) if (!(list[k - 1]![0] < list[k]![0])) return false;
  return true;
}

/** The C14N spelling of an attribute value's text, or null for literal whitespace controls. */
function canonicalAttributeValue(raw: string): string | null {
  if (raw.includes('\t') || raw.includes('\n')) return null; // normalised to spaces by parsers
  if (!raw.includes('&')) return raw;
  let out = '';
  let last = 0;
  for (let k = raw.indexOf('&'); k >= 0; k = raw.indexOf('&', k)) {
    const ref = readReference(raw, k);
    if (!ref) return null;
    out += raw.slice(last, k) + escapeAttributeChar(ref.codePoint);
    last = k = ref.end;
  }
  return out + raw.slice(last);
}

function readReference(text: string, at: number): { codePoint: number; end: number } | null {
  REFERENCE.lastIndex = at;
  const m = REFERENCE.exec(text);
  if (!m) return null;
  const codePoint = m[1] ? NAMED[m[1]]! : m[2] ? Number.parseInt(m[2], 10) : Number.parseInt(m[3]!, 16);
  if (!isXmlChar(codePoint)) return null;
  return { codePoint, end: REFERENCE.lastIndex };
}

function isXmlChar(c: number): boolean {
  return (
    c === 0x9 ||
    c === 0xa ||
    c === 0xd ||
    (c >= 0x20 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd) ||
    (c >= 0x10000 && c <= 0x10ffff)
  );
}

/** C14N text: &amp; &lt; &gt; and &#xD;, everything else as the character itself. */
function escapeTextChar(c: number): string {
  switch (c) {
    case 38:
      return '&amp;';
    case 60:
      return '&lt;';
    case 62:
      return '&gt;';
    case 13:
      return '&#xD;';
    default:
      return String.fromCodePoint(c);
  }
}

/** C14N attribute values: &amp; &lt; &quot; &#x9; &#xA; &#xD;, everything else as itself. */
function escapeAttributeChar(c: number): string {
  switch (c) {
    case 38:
      return '&amp;';
    case 60:
      return '&lt;';
    case 34:
      return '&quot;';
    case 9:
      return '&#x9;';
    case 10:
      return '&#xA;';
    case 13:
      return '&#xD;';
    default:
      return String.fromCodePoint(c);
  }
}

/** XML 1.0 characters only, surrogates paired, and no CR (parsers rewrite CR and CRLF to LF). */
function hasOnlyXmlChars(xml: string): boolean {
  SUSPICIOUS_CHAR.lastIndex = 0;
  for (let m = SUSPICIOUS_CHAR.exec(xml); m; m = SUSPICIOUS_CHAR.exec(xml)) {
    const c = m[0].charCodeAt(0);
    if (c >= 0xd800 && c <= 0xdbff) {
      const low = xml.charCodeAt(m.index + 1);
      if (!(low >= 0xdc00 && low <= 0xdfff)) return false;
      SUSPICIOUS_CHAR.lastIndex = m.index + 2;
    } else {
      return false;
    }
  }
  return true;
}

function skipWhitespace(xml: string, from: number): number {
  let i = from;
  for (let c = xml.charCodeAt(i); c === SPACE || c === 9 || c === 10; c = xml.charCodeAt(++i));
  return i;
}
