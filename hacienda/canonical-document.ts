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
/** ` name="value"`; a value never holds `<` or `"`; references and controls are checked apart. */
const ATTRIBUTE = / ([A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?)="([^"<]*)"/y;
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));/y;
/**
 * A whole element `<Name>text</Name>` with plain text: XML 1.0 characters that C14N writes as
 * they are (no markup characters, references, CR or surrogates). Most elements of a comprobante
 * are such leaves, and one sticky match reads each, name check included, faster than the
 * character loops below; anything else falls to them (same verdict, only slower).
 */
const PLAIN_LEAF =
  // eslint-disable-next-line no-control-regex
  /<([A-Za-z_][A-Za-z0-9._-]*)>[^<>&\u0000-\u0008\u000B-\u001F\uD800-\uDFFF\uFFFE\uFFFF]*<\/\1>/y;
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NAMED: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39 };

const LT = 60;
const GT = 62;
const AMP = 38;
const SLASH = 47;
const SPACE = 32;
const TAB = 9;
const LF = 10;

/** Returns the document's C14N form, or null when the text is not in the shape described above. */
export function canonicalizeDocument(xml: string): CanonicalDocument | null {
  let i = 0;
  if (xml.startsWith('<?xml', 0)) {
    DECLARATION.lastIndex = 0;
    if (!DECLARATION.test(xml)) return null;
    i = DECLARATION.lastIndex;
  }
  i = skipWhitespace(xml, i);
  if (xml.charCodeAt(i) !== LT) return null;

  const out = new CanonicalText(xml, i);
  // The open elements, as [nameStart, nameEnd] index pairs into `xml` (no name is copied).
  const open: number[] = [];
  let namespaces: [string, string][] = [];

  for (;;) {
    // Here xml[i] is '<'.
    if (xml.charCodeAt(i + 1) === SLASH) {
      const nameEnd = open.pop();
      const nameStart = open.pop();
      if (nameStart === undefined || nameEnd === undefined) return null;
      const tagEnd = i + 2 + (nameEnd - nameStart);
      if (!sameText(xml, nameStart, i + 2, nameEnd - nameStart) || xml.charCodeAt(tagEnd) !== GT) return null;
      if (open.length === 0) {
        const rootEnd = tagEnd + 1;
        if (skipWhitespace(xml, rootEnd) !== xml.length) return null;
        return { canonical: out.finish(rootEnd), rootCloseStart: i, namespaces };
      }
      i = tagEnd + 1;
    } else if (open.length > 0 && matchesPlainLeaf(xml, i)) {
      // A whole leaf below the root, text included: nothing to push, rewrite or pop.
      i = PLAIN_LEAF.lastIndex;
    } else {
      const nameEnd = readName(xml, i + 1);
      if (nameEnd === i + 1) return null;
      if (xml.charCodeAt(nameEnd) === GT) {
        // Most elements carry no attributes: nothing to read, order or rewrite.
        open.push(i + 1, nameEnd);
        i = nameEnd + 1;
      } else {
        const tag = readAttributes(xml, nameEnd, open.length === 0);
        if (!tag) return null;
        if (open.length === 0) namespaces = tag.namespaces;
        if (tag.canonical !== null) {
          const canonicalTag = `<${xml.slice(i + 1, nameEnd)}${tag.canonical}>`;
          if (canonicalTag !== xml.slice(i, tag.end)) out.splice(i, tag.end, canonicalTag);
        }
        open.push(i + 1, nameEnd);
        i = tag.end;
      }
    }
    i = readText(xml, i, out);
    if (i < 0) return null;
  }
}

/**
 * The canonical form being assembled: the input's text from the root on, with the spans C14N
 * spells differently replaced. A builder document usually needs no replacement at all, and then
 * the result is one slice of the input.
 */
class CanonicalText {
  private readonly parts: string[] = [];
  private copied: number;

  constructor(
    private readonly xml: string,
    from: number,
  ) {
    this.copied = from;
  }

  /** Writes `replacement` instead of the input's [from, to). */
  splice(from: number, to: number, replacement: string): void {
    this.parts.push(this.xml.slice(this.copied, from), replacement);
    this.copied = to;
  }

  /** The canonical text up to the input's index `end`. */
  finish(end: number): string {
    const rest = this.xml.slice(this.copied, end);
    if (this.parts.length === 0) return rest;
    this.parts.push(rest);
    return this.parts.join('');
  }
}

/**
 * Reads character data from `from` up to the next '<' and returns that index, or -1 when the
 * text ends the document or holds anything the scanner refuses. On the way it checks every code
 * unit is an XML 1.0 character (no CR, see the header; surrogates paired) and applies the C14N
 * spellings of text: a literal '>' becomes &gt;, references their canonical form.
 */
function readText(xml: string, from: number, out: CanonicalText): number {
  for (let k = from; k < xml.length; k++) {
    const c = xml.charCodeAt(k);
    if (c === LT) return k;
    if (c === GT) {
      // A literal '>' is legal text unless it ends ']]>'; C14N writes it as &gt;.
      if (k >= from + 2 && xml.charCodeAt(k - 1) === 93 && xml.charCodeAt(k - 2) === 93) return -1;
      out.splice(k, k + 1, '&gt;');
    } else if (c === AMP) {
      const ref = readReference(xml, k);
      if (!ref) return -1;
      const canonical = escapeTextChar(ref.codePoint);
      if (canonical !== xml.slice(k, ref.end)) out.splice(k, ref.end, canonical);
      k = ref.end - 1;
    } else if (c < SPACE || c >= 0xd800) {
      const units = xmlCharUnits(xml, k, c);
      if (units === 0) return -1;
      k += units - 1;
    }
  }
  return -1;
}

/** Name characters the scanner accepts (ASCII only): bit 1 may start a name, bit 2 continue it. */
const NAME_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_]/.test(ch)) NAME_CHARS[c] = 3;
  else if (/[0-9.-]/.test(ch)) NAME_CHARS[c] = 2;
}

/** The index just after the name `[A-Za-z_][A-Za-z0-9._-]*` at `from`, or `from` when there is none. */
function readName(xml: string, from: number): number {
  const first = xml.charCodeAt(from);
  if (!(first < 128 && (NAME_CHARS[first]! & 1) !== 0)) return from;
  let j = from + 1;
  for (let c = xml.charCodeAt(j); c < 128 && NAME_CHARS[c] !== 0; c = xml.charCodeAt(++j));
  return j;
}

/** Whether a PLAIN_LEAF element starts at `at`; PLAIN_LEAF.lastIndex is then its end. */
function matchesPlainLeaf(xml: string, at: number): boolean {
  PLAIN_LEAF.lastIndex = at;
  return PLAIN_LEAF.test(xml);
}

/** Whether xml[a, a + length) and xml[b, b + length) are the same text. */
function sameText(xml: string, a: number, b: number, length: number): boolean {
  if (b + length > xml.length) return false;
  for (let k = 0; k < length; k++) if (xml.charCodeAt(a + k) !== xml.charCodeAt(b + k)) return false;
  return true;
}

/**
 * How many code units the XML 1.0 character starting at `k` (code unit `c`) takes: 1, or 2 for a
 * surrogate pair; 0 when none starts there (controls other than tab and LF, CR (see the header),
 * an unpaired surrogate, U+FFFE, U+FFFF). The one character rule of text and attribute values.
 */
function xmlCharUnits(text: string, k: number, c: number): number {
  if (c < SPACE) return c === TAB || c === LF ? 1 : 0;
  if (c < 0xd800) return 1;
  if (c <= 0xdbff) {
    const low = text.charCodeAt(k + 1);
    return low >= 0xdc00 && low <= 0xdfff ? 2 : 0;
  }
  return c <= 0xdfff || c >= 0xfffe ? 0 : 1;
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
    if (!hasOnlyXmlChars(raw)) return null;
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

/**
 * XML 1.0 characters only, surrogates paired, and no CR (parsers rewrite CR and CRLF to LF): the
 * check readText makes on character data, for an attribute value.
 */
function hasOnlyXmlChars(text: string): boolean {
  for (let k = 0; k < text.length;) {
    const units = xmlCharUnits(text, k, text.charCodeAt(k));
    if (units === 0) return false;
    k += units;
  }
  return true;
}

function skipWhitespace(xml: string, from: number): number {
  let i = from;
  for (let c = xml.charCodeAt(i); c === SPACE || c === 9 || c === 10; c = xml.charCodeAt(++i));
  return i;
}
