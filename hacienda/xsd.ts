// Schema validation of v4.4 documents against the official XSDs with libxml2's xmllint, the same
// check Hacienda applies first. Many documents are validated in ONE xmllint process (the schema
// is compiled once), which is what makes batch checks and the property test fast. Results carry
// line/column/message per error and a Xerces-style "cvc-…" text, so the simulator can write
// Hacienda's `-1, "cvc-…", fila, columna` rows.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Root elements with an official schema in the sets under the XSD directory. */
export type SchemaDocumentType =
  | 'FacturaElectronica'
  | 'NotaCreditoElectronica'
  | 'NotaDebitoElectronica'
  | 'TiqueteElectronico'
  | 'MensajeHacienda'
  | 'MensajeReceptor'
  | 'ReciboElectronicoPago'
  | 'FacturaElectronicaCompra'
  | 'FacturaElectronicaExportacion';

/** The schema set in force since 2026-11-01; `2024/v4.4` is kept for comparison tests. */
export const DEFAULT_SCHEMA_SET = '2026/v4.4';

export interface SchemaOptions {
  /**
   * Root of the XSD tree (`<dir>/<set>/<Type>_V4.4.xsd`): the process's configured `xsdDir` (env
   * XSD_DIR), passed down by its entry point (this module reads no configuration).
   */
  schemaDir: string;
  /** Sub-directory of the set, default `2026/v4.4`. */
  schemaSet?: string;
  /** Path of the xmllint binary, default `xmllint` on PATH. */
  xmllint?: string;
}

export interface SchemaError {
  /** 1-based line in the document; 0 when xmllint gives none. */
  line: number;
  /** 1-based column of the offending element's start tag on that line; 0 when unknown. */
  column: number;
  /** libxml2's message, e.g. "Element '{ns}Foo': This element is not expected. Expected is ( … )." */
  message: string;
  /** The same error worded as Xerces/Hacienda report it, e.g. "cvc-complex-type.2.4.a: …". */
  cvc: string;
}

export interface SchemaValidationResult {
  valid: boolean;
  errors: SchemaError[];
}

/** xmllint is not installed or not executable. */
export class XmllintMissingError extends Error {
  constructor(binary: string, cause?: unknown) {
    super(
      `xmllint not found ("${binary}"): schema validation needs libxml2's xmllint ` +
        '(Debian/Ubuntu: apt-get install libxml2-utils)',
      { cause },
    );
    this.name = 'XmllintMissingError';
  }
}

/** No schema file for the requested document type in the configured directory. */
export class SchemaNotFoundError extends Error {
  constructor(readonly path: string) {
    super(`schema not found: ${path} (set XSD_DIR to the directory holding 2026/v4.4/…)`);
    this.name = 'SchemaNotFoundError';
  }
}

/** Absolute path of the XSD for a document type. */
export function schemaPath(docType: SchemaDocumentType, options: SchemaOptions): string {
  return join(options.schemaDir, options.schemaSet ?? DEFAULT_SCHEMA_SET, `${docType}_V4.4.xsd`);
}

/** Validates one document (string or the exact signed bytes). */
export async function validateXml(
  docType: SchemaDocumentType,
  xml: string | Uint8Array,
  options: SchemaOptions,
): Promise<SchemaValidationResult> {
  const [result] = await validateXmlBatch(docType, [xml], options);
  if (!result) throw new Error('xmllint returned no result');
  return result;
}

// xmllint's argument list grows with the batch; this keeps it well under ARG_MAX.
const MAX_FILES_PER_RUN = 5000;

/**
 * Validates many documents of one type with a single xmllint process per 5,000 documents.
 * Results are in input order.
 */
export async function validateXmlBatch(
  docType: SchemaDocumentType,
  documents: readonly (string | Uint8Array)[],
  options: SchemaOptions,
): Promise<SchemaValidationResult[]> {
  const xsd = schemaPath(docType, options);
  if (!existsSync(xsd)) throw new SchemaNotFoundError(xsd);
  if (documents.length === 0) return [];
  const dir = await mkdtemp(join(tmpdir(), 'xsd-'));
  try {
    await Promise.all(documents.map((doc, i) => writeFile(join(dir, `${i}.xml`), doc)));
    const results: SchemaValidationResult[] = [];
    for (let start = 0; start < documents.length; start += MAX_FILES_PER_RUN) {
      const names: string[] = [];
      for (let i = start; i < Math.min(documents.length, start + MAX_FILES_PER_RUN); i++)
        names.push(`${i}.xml`);
      const output = await runXmllint(options.xmllint ?? 'xmllint', xsd, names, dir);
      const parsed = parseXmllintOutput(output, names);
      names.forEach((name, k) => {
        const doc = documents[start + k];
        const r = parsed.get(name) ?? { valid: false, errors: [] };
        results.push({ valid: r.valid, errors: r.errors.map((e) => withColumn(e, doc)) });
      });
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runXmllint(binary: string, xsd: string, files: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ['--noout', '--nonet', '--schema', xsd, ...files],
      { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        // Exit codes 1-5 only mean that some document is invalid; the report is on stderr.
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new XmllintMissingError(binary, error));
          return;
        }
        if (error && typeof error.code === 'number' && error.code > 5) {
          reject(new Error(`xmllint failed (exit ${error.code}): ${stderr.slice(0, 2000)}`));
          return;
        }
        if (/WXS schema .* failed to compile/.test(stderr)) {
          reject(new Error(`the schema ${xsd} does not compile: ${stderr.slice(0, 2000)}`));
          return;
        }
        resolve(stderr + stdout);
      },
    );
  });
}

interface RawError {
  line: number;
  message: string;
  /** For parser errors: the context excerpt and caret offset libxml2 prints. */
  context?: { excerpt: string; caret: number };
  element?: string;
}

/** Parses xmllint's report: `<file>:<line>: element X: Schemas validity error : <msg>` etc. */
export function parseXmllintOutput(
  output: string,
  files: readonly string[],
): Map<string, { valid: boolean; errors: RawError[] }> {
  const byFile = new Map<string, { valid: boolean; errors: RawError[] }>();
  for (const f of files) byFile.set(f, { valid: false, errors: [] });
  const lines = output.split('\n');
  let last: RawError | null = null;
  let pendingExcerpt: string | null = null;
  for (const text of lines) {
    const status = /^(\S+\.xml) (validates|fails to validate|validation generated an internal error)$/.exec(
      text,
    );
    if (status) {
      const entry = byFile.get(status[1] ?? '');
      if (entry) entry.valid = status[2] === 'validates';
      last = null;
      continue;
    }
    const err = /^(\S+\.xml):(\d+): (.*)$/.exec(text);
    if (err) {
      const entry = byFile.get(err[1] ?? '');
      if (!entry) continue;
      const body = err[3] ?? '';
      const schema = /^element ([^:]+): Schemas validity error : (.*)$/.exec(body);
      const parser = /^(?:parser|namespace|validity) error : (.*)$/.exec(body);
      last = {
        line: Number(err[2]),
        message: schema ? (schema[2] ?? '') : parser ? (parser[1] ?? '') : body,
        ...(schema ? { element: schema[1] ?? '' } : {}),
      };
      entry.errors.push(last);
      pendingExcerpt = null;
      continue;
    }
    // Parser errors are followed by an excerpt of the line and a caret under the error.
    if (last && !last.element) {
      if (pendingExcerpt === null) {
        pendingExcerpt = text;
      } else if (/^\s*\^$/.test(text)) {
        last.context = { excerpt: pendingExcerpt, caret: text.indexOf('^') };
        pendingExcerpt = null;
        last = null;
      }
    }
  }
  return byFile;
}

function documentLine(doc: string | Uint8Array | undefined, line: number): string | null {
  if (doc === undefined || line < 1) return null;
  const text = typeof doc === 'string' ? doc : Buffer.from(doc).toString('utf8');
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf('\n', start);
    if (next < 0) return null;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? undefined : end);
}

function withColumn(e: RawError, doc: string | Uint8Array | undefined): SchemaError {
  let column = 0;
  let value: string | undefined;
  const source = documentLine(doc, e.line);
  if (source !== null) {
    if (e.element) {
      // Start tag of the element on that line, with or without a namespace prefix.
      const name = e.element.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const m = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?(/?)>(?:([^<]*)<)?`).exec(source);
      if (m) {
        column = m.index + 1;
        value = m[1] === '/' ? '' : unescapeText(m[2] ?? '');
      }
    } else if (e.context) {
      const at = source.indexOf(e.context.excerpt.trimEnd());
      if (at >= 0) column = at + e.context.caret + 1;
    }
  }
  return { line: e.line, column, message: e.message, cvc: toCvc({ ...e, value }) };
}

function unescapeText(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, ref: string) => {
    if (ref === 'amp') return '&';
    if (ref === 'lt') return '<';
    if (ref === 'gt') return '>';
    if (ref === 'quot') return '"';
    if (ref === 'apos') return "'";
    return String.fromCodePoint(ref[1] === 'x' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)));
  });
}

const localName = (qname: string): string => qname.replace(/^\{[^}]*\}/, '');
const expectedList = (text: string): string =>
  text
    .split(',')
    .map((s) => `"${s.trim().replace(/^\{([^}]*)\}/, '$1":')}`)
    .join(', ');

// Elements of the v4.4 schemas whose local simple types derive from xs:integer (the rest of the
// numeric local types derive from xs:decimal); Xerces names that base type in its message.
const INTEGER_ELEMENTS = new Set([
  'NumeroLinea',
  'PlazoCredito',
  'Articulo',
  'Inciso',
  'Provincia',
  'Canton',
  'Distrito',
  'CodigoPais',
  'NumTelefono',
]);

function baseTypeName(type: string | undefined, element: string | undefined): string {
  if (type === undefined) return element && INTEGER_ELEMENTS.has(element) ? 'integer' : 'decimal';
  const local = localName(type).replace(/^xs:/, '');
  return local === 'DecimalDineroType' ? 'decimal' : local;
}

const fractionDigits = (v: string): number => (v.split('.')[1] ?? '').replace(/0+$/, '').length;
const totalDigits = (v: string): number =>
  v
    .replace(/^[-+]?0*/, '')
    .replace('.', '')
    .replace(/0+$/, '').length || 1;

/**
 * Rewords a libxml2 schema message the way Xerces (and so Hacienda's DetalleMensaje) reports it,
 * e.g. "cvc-complex-type.2.4.a: Invalid content was found starting with element 'X'. One of
 * '{"ns":Y}' is expected." Messages without a known Xerces counterpart are returned unchanged.
 * `value` is the element's text, which libxml2 leaves out of length messages.
 */
export function toCvc(e: { message: string; element?: string; value?: string }): string {
  const m = e.message;
  let r: RegExpExecArray | null;
  if (
    (r = /^Element '([^']+)': This element is not expected\. Expected is(?: one of)? \( (.*) \)\.?$/.exec(m))
  ) {
    return `cvc-complex-type.2.4.a: Invalid content was found starting with element '${localName(r[1] ?? '')}'. One of '{${expectedList(r[2] ?? '')}}' is expected.`;
  }
  if ((r = /^Element '([^']+)': This element is not expected\.$/.exec(m))) {
    return `cvc-complex-type.2.4.d: Invalid content was found starting with element '${localName(r[1] ?? '')}'. No child element is expected at this point.`;
  }
  if (
    (r = /^Element '([^']+)': Missing child element\(s\)\. Expected is(?: one of)? \( (.*) \)\.?$/.exec(m))
  ) {
    return `cvc-complex-type.2.4.b: The content of element '${localName(r[1] ?? '')}' is not complete. One of '{${expectedList(r[2] ?? '')}}' is expected.`;
  }
  if ((r = /^Element '[^']+': \[facet '(\w+)'\] (.*)$/.exec(m))) {
    const facet = r[1] ?? '';
    const rest = r[2] ?? '';
    const quoted = /^The value '([^']*)'/.exec(rest)?.[1];
    const value = quoted ?? e.value ?? '';
    const limit = /\('([^']*)'\)\.?$/.exec(rest)?.[1] ?? /of '([^']*)'\.?$/.exec(rest)?.[1] ?? '';
    switch (facet) {
      case 'enumeration': {
        const set = /element of the set \{(.*)\}/.exec(rest)?.[1] ?? '';
        return `cvc-enumeration-valid: Value '${value}' is not facet-valid with respect to enumeration '[${set.replace(/'/g, '')}]'. It must be a value from the enumeration.`;
      }
      case 'pattern': {
        const pattern = /pattern '(.*)'\.?$/.exec(rest)?.[1] ?? '';
        return `cvc-pattern-valid: Value '${value}' is not facet-valid with respect to pattern '${pattern}'.`;
      }
      case 'minLength':
      case 'maxLength':
      case 'length':
        return `cvc-${facet}-valid: Value '${value}' with length = '${[...value].length}' is not facet-valid with respect to ${facet} '${limit}'.`;
      case 'fractionDigits':
        return `cvc-fractionDigits-valid: Value '${value}' has ${fractionDigits(value)} fraction digits, but the number of fraction digits has been limited to ${limit}.`;
      case 'totalDigits':
        return `cvc-totalDigits-valid: Value '${value}' has ${totalDigits(value)} total digits, but the number of total digits has been limited to ${limit}.`;
      case 'minInclusive':
      case 'maxInclusive':
      case 'minExclusive':
      case 'maxExclusive':
        return `cvc-${facet}-valid: Value '${value}' is not facet-valid with respect to ${facet} '${limit}'.`;
      default:
        return m;
    }
  }
  if (
    (r =
      /^Element '[^']+': '([^']*)' is not a valid value of the (?:local )?atomic type(?: '([^']+)')?\.$/.exec(
        m,
      ))
  ) {
    return `cvc-datatype-valid.1.2.1: '${r[1] ?? ''}' is not a valid value for '${baseTypeName(r[2], e.element)}'.`;
  }
  if (
    (r = /^Element '([^']+)': No matching global declaration available for the validation root\.$/.exec(m))
  ) {
    return `cvc-elt.1.a: Cannot find the declaration of element '${localName(r[1] ?? '')}'.`;
  }
  if ((r = /^Element '([^']+)': Character content other than whitespace is not allowed/.exec(m))) {
    return `cvc-complex-type.2.3: Element '${localName(r[1] ?? '')}' cannot have character [children], because the type's content type is element-only.`;
  }
  return m;
}

/** Hacienda's DetalleMensaje rows for schema errors: code -1, message, fila, columna. */
export function toHaciendaRows(
  errors: readonly SchemaError[],
): { codigo: -1; mensaje: string; fila: number; columna: number }[] {
  return errors.map((e) => ({ codigo: -1, mensaje: e.cvc, fila: e.line, columna: e.column }));
}
