// Building blocks of the hostile-input suite: adversarial strings and numbers, a JSON text
// builder that can write what JSON.stringify cannot (raw number tokens such as 1e400 or 20-digit
// integers, 1,000-level nesting, keys like __proto__), percent-encoding of arbitrary bytes, and
// mutation of a valid body at any depth.
import fc from 'fast-check';

/** JSON text written as is (a number token JSON.stringify cannot produce, deep nesting). */
export class Raw {
  constructor(readonly text: string) {}
}
/** An object as ordered entries, so keys such as `__proto__` stay plain keys. */
export class Obj {
  constructor(readonly entries: [string, J][]) {}
}
export type J = null | boolean | number | string | Raw | Obj | J[];
export type Path = (string | number)[];

export function jsonText(j: J): string {
  if (j instanceof Raw) return j.text;
  if (j instanceof Obj)
    return `{${j.entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  if (Array.isArray(j)) return `[${j.map(jsonText).join(',')}]`;
  // JSON.stringify(-0) is "0" and NaN/Infinity are "null": write what the value is.
  if (typeof j === 'number') return Object.is(j, -0) ? '-0' : JSON.stringify(j);
  return JSON.stringify(j);
}

export function fromValue(v: unknown): J {
  if (Array.isArray(v)) return v.map(fromValue);
  if (v !== null && typeof v === 'object')
    return new Obj(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromValue(x)]));
  return v as J;
}

/** Every path inside a value (objects' keys and arrays' indexes), the root included. */
export function pathsOf(j: J, max = 200): Path[] {
  const out: Path[] = [];
  const walk = (x: J, p: Path) => {
    if (out.length >= max) return;
    out.push(p);
    if (x instanceof Obj) for (const [k, v] of x.entries) walk(v, [...p, k]);
    else if (Array.isArray(x)) x.forEach((v, i) => walk(v, [...p, i]));
  };
  walk(j, []);
  return out;
}

/** The value with the node at `path` replaced (undefined: removed). */
export function replaceAt(j: J, path: Path, value: J | undefined): J | undefined {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (j instanceof Obj) {
    const entries: [string, J][] = [];
    for (const [k, v] of j.entries) {
      if (k !== head) entries.push([k, v]);
      else {
        const next = replaceAt(v, rest, value);
        if (next !== undefined) entries.push([k, next]);
      }
    }
    return new Obj(entries);
  }
  if (Array.isArray(j)) {
    const copy = [...j];
    const next = replaceAt(copy[head as number] ?? null, rest, value);
    if (next === undefined) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  return j;
}

/** Adds (or overrides) a key of an object node; anything else is returned unchanged. */
export function withKey(j: J, key: string, value: J): J {
  if (!(j instanceof Obj)) return j;
  return new Obj([...j.entries.filter(([k]) => k !== key), [key, value]]);
}

export const SQL_INJECTION = [
  "' OR 1=1 --",
  "' OR '1'='1",
  '"; drop table invoices; --',
  "'; drop table clients; --",
  '1; select pg_sleep(5); --',
  "' union select secret_hash from api_key_secrets --",
  "%' or name ilike '%",
  "\\'; truncate api_keys; --",
  '$1',
  '?',
  '??',
  ':id',
  "') or true; --",
  '1 AND (SELECT 1 FROM pg_stat_activity)=1',
];

export const XML_INJECTION = [
  ']]>',
  '<![CDATA[x]]>',
  '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
  '&xxe;',
  '&amp;',
  '&#x0;',
  '&lt;',
  '</Nombre><Nombre>Otro',
  '<?xml version="1.0"?>',
  '<ds:Signature/>',
  '"\'><img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '\' " & < >',
];

export const UNICODE_TRICKS = [
  '\u202E', // right-to-left override
  '\u202Dabc\u202C',
  '\u200B', // zero-width space
  '\u200D',
  '\uFEFF', // byte order mark
  '\u0000',
  '\u0001',
  '\u0008',
  '\u001B[31m',
  '\u007F',
  '\u0085',
  '\uD800', // lone high surrogate
  '\uDC00', // lone low surrogate
  '\uFFFE',
  '\uFFFF',
  'e\u0301',
  '𝕏',
  '👨‍👩‍👧',
  'İı',
  'ß',
  '\u2028',
  '\u2029',
  '\r\n',
  '\t',
  '﷽',
  'Ω',
];

export const NUMERIC_STRINGS = [
  '1e308',
  '-1e308',
  '1e-308',
  '-0',
  'NaN',
  'Infinity',
  '-Infinity',
  '99999999999999999999',
  '-99999999999999999999',
  '0x10',
  '1_000',
  '０１２',
  '1.',
  '.5',
  '',
  ' ',
  '1,5',
  '٣',
  '0.000001',
  '9999999999999.99999',
  '00000000000000000000001',
];

/** Number tokens written raw into JSON text (JSON.stringify cannot write most of them). */
export const RAW_NUMBERS = [
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '5e-324',
  '1e-400',
  '-0',
  '-0.0',
  '0e0',
  '99999999999999999999',
  '-99999999999999999999',
  '123456789012345678901234567890',
  '1E+2',
  '9007199254740993',
];

const injections = [...SQL_INJECTION, ...XML_INJECTION, ...UNICODE_TRICKS, ...NUMERIC_STRINGS];

/** A string meant to break things: injections, unicode tricks, random code points, long runs. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...injections) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...injections), fc.string({ maxLength: 8 }))
      .map((p) => p.join('')),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(300), 'ñ'.repeat(5000), '\u202E'.repeat(1000)) },
);

/**
 * Text that is often within a field's length bounds, so that it reaches the code behind the
 * schema: a readable prefix, an injection, random code points, clipped to [min, max] UTF-16 units.
 */
export function hostileText(min: number, max: number): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom('Ana ', 'Comercial ', 'Servicio ', ''),
      fc.constantFrom(...injections),
      fc.oneof(fc.string({ maxLength: 10 }), fc.string({ unit: 'grapheme', maxLength: 10 })),
      fc.constantFrom(...injections, ''),
    )
    .map((p) => {
      const s = p.join('');
      return (s.length < min ? s + 'x'.repeat(min - s.length) : s).slice(0, max);
    });
}

export const deepArray = (levels: number) => new Raw('['.repeat(levels) + ']'.repeat(levels));
export const deepObject = (levels: number) => new Raw('{"a":'.repeat(levels) + '1' + '}'.repeat(levels));

const hostileKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', '', ' ', '$where', 'a.b', '0', 'toString'),
  hostileString,
);

/** Any JSON value, biased towards the adversarial. */
export const hostileJson: fc.Arbitrary<J> = fc.letrec<{ value: J }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.constantFrom(1e308, -1e308, 5e-324, -0, 0, 2 ** 53 + 2, -1, 0.1, 13.37),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...RAW_NUMBERS).map((t) => new Raw(t)),
    fc.constantFrom(deepArray(1000), deepObject(1000), deepArray(20)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 })
      .map((entries) => new Obj(entries as [string, J][])),
  ),
})).value;

/** Percent-encodes the UTF-8 bytes of a string (unreserved characters kept). */
export function percentEncode(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** URL fragments that are not valid percent-encoded UTF-8, or that play with path syntax. */
export const RAW_URL_FRAGMENTS = [
  '%',
  '%Z',
  '%ZZ',
  '%C0%AF', // overlong '/'
  '%FF',
  '%ED%A0%80', // an encoded surrogate
  '%00',
  '%2e%2e',
  '..',
  '%2F',
  '%252F',
  '%E2%80%AE',
  'inv_000000000001%00',
];

/** Bytes that are not valid UTF-8: overlong forms, lone continuation bytes, surrogates, 0xFF. */
export const INVALID_UTF8 = [
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xe0, 0x80, 0xaf]),
  Buffer.from([0x80]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0xc3]),
];
