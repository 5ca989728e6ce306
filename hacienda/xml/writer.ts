// A minimal streaming XML writer for the comprobantes: string building, no DOM, so a document is
// written in microseconds. It owns escaping and the XML 1.0 character rules; callers pass plain
// text. Each element goes on its own line (no indentation) so that schema errors reported by
// line point at one element, as Hacienda's "fila, columna" rows do.

/** A character that XML 1.0 cannot carry at all (control characters, unpaired surrogates, U+FFFE/F). */
const INVALID_XML_CHAR =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TEXT_SPECIAL = /[&<>\r]/;
const ATTR_SPECIAL = /[&<>"\r\n\t]/;

/** Text that cannot be written into an XML 1.0 document. */
export class XmlCharacterError extends Error {
  constructor(
    readonly element: string,
    readonly codePoint: number,
  ) {
    super(
      `<${element}> contains U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}, not allowed in XML`,
    );
    this.name = 'XmlCharacterError';
  }
}

function checkChars(element: string, value: string): void {
  const m = INVALID_XML_CHAR.exec(value);
  if (m) throw new XmlCharacterError(element, m[0].charCodeAt(0));
}

/**
 * Whether `value` can go into character data exactly as it is: every code unit is tab, LF or
 * U+0020..U+D7FF other than `&`, `<` and `>`. Most values (codes, amounts, names) are, and one
 * pass over their few characters is cheaper than the two regular expressions checkChars and
 * escapeText run; anything else (CR, controls, surrogates, U+E000 and above, markup characters)
 * takes that exact path.
 */
function isPlainText(value: string): boolean {
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if (c < 0x20 ? c !== 0x09 && c !== 0x0a : c === 0x26 || c === 0x3c || c === 0x3e || c >= 0xd800) {
      return false;
    }
  }
  return true;
}

/**
 * Escapes character data: `&`, `<`, `>` (so `]]>` can never appear) and CR (written as a
 * reference so that parsers do not normalise it away). Quotes need no escaping in text.
 */
export function escapeText(value: string): string {
  if (!TEXT_SPECIAL.test(value)) return value;
  return value.replace(/[&<>\r]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#13;',
  );
}

/** Escapes an attribute value written between double quotes (whitespace kept via references). */
export function escapeAttr(value: string): string {
  if (!ATTR_SPECIAL.test(value)) return value;
  return value.replace(/[&<>"\r\n\t]/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case '\r':
        return '&#13;';
      case '\n':
        return '&#10;';
      default:
        return '&#9;';
    }
  });
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;

/** Appends elements to an in-memory string. Element names are trusted constants of the builders. */
export class XmlWriter {
  private out = '';
  private readonly stack: string[] = [];

  /** `<?xml version="1.0" encoding="utf-8"?>` */
  declaration(): this {
    this.out += '<?xml version="1.0" encoding="utf-8"?>\n';
    return this;
  }

  open(name: string, attributes?: Readonly<Record<string, string>>): this {
    this.out += `<${name}`;
    if (attributes) {
      for (const [k, v] of Object.entries(attributes)) {
        if (!NAME.test(k)) throw new Error(`invalid attribute name "${k}"`);
        checkChars(name, v);
        this.out += ` ${k}="${escapeAttr(v)}"`;
      }
    }
    this.out += '>\n';
    this.stack.push(name);
    return this;
  }

  close(): this {
    const name = this.stack.pop();
    if (name === undefined) throw new Error('close() without an open element');
    this.out += `</${name}>\n`;
    return this;
  }

  /** `<name>text</name>` */
  leaf(name: string, text: string, attributes?: Readonly<Record<string, string>>): this {
    let body = text;
    if (!isPlainText(text)) {
      checkChars(name, text);
      body = escapeText(text);
    }
    let attrs = '';
    if (attributes) {
      for (const [k, v] of Object.entries(attributes)) {
        if (!NAME.test(k)) throw new Error(`invalid attribute name "${k}"`);
        checkChars(name, v);
        attrs += ` ${k}="${escapeAttr(v)}"`;
      }
    }
    this.out += `<${name}${attrs}>${body}</${name}>\n`;
    return this;
  }

  /** Writes the element only when a value is present (absent ≠ empty: never `<X></X>`). */
  optLeaf(name: string, text: string | null | undefined): this {
    if (text !== null && text !== undefined) this.leaf(name, text);
    return this;
  }

  /** The document so far; every opened element must be closed. */
  toString(): string {
    if (this.stack.length > 0) throw new Error(`unclosed elements: ${this.stack.join(' > ')}`);
    return this.out;
  }
}
