// What every business rule gets: the parsed comprobante and a few facts read once (document type,
// FechaEmision, the clock, the optional CABYS catalogue), plus small shared helpers. What depends
// on the document type is read from its descriptor (domain/document-types/): its root, the
// type-specific rules Hacienda applies to it, the code tables it follows.
import { Decimal } from 'decimal.js';
import type { TipoComprobante } from '../../domain/codes.ts';
import {
  documentTypeOfRoot,
  findDocumentType,
  type DocumentTypeDescriptor,
  type TypeCheck,
} from '../../domain/document-types/index.ts';
import { text } from './xml-reader.ts';
import type { XmlElement } from './xml-reader.ts';
import type { Row } from './verdict.ts';

export const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
export type D = InstanceType<typeof Dec>;
export const ZERO = new Dec(0);
/** Half a unit of the 5th decimal: what rounding a product to 5 decimals may move it. */
export const HALF_UNIT = new Dec('0.000005');

export interface RuleContext {
  root: XmlElement;
  /** The document's type (01 FE, 02 ND, 03 NC, 04 TE, 08, 09, 10, …: typeOfDocument), or null. */
  tipo: string | null;
  /** FechaEmision in epoch ms, or null when absent or unreadable. */
  fechaEmision: number | null;
  now: number;
  /** Hacienda's published CABYS codes, when the operator supplied the file. */
  cabys: ReadonlySet<string> | null;
  /** Oldest FechaEmision accepted without the observation -16, as an age in ms. */
  maxDocumentAgeMs: number;
  /** Newest FechaEmision accepted (-53), as a lead over the clock in ms. */
  maxClockSkewMs: number;
}

export type Rule = (ctx: RuleContext) => Row[];

export const row = (code: number, message: string): Row => ({ code, message, line: 0, column: 0 });

const DECIMAL = /^\s*\d+(\.\d+)?\s*$/;

/** The decimal at path, or null when absent or not a plain non-negative decimal. */
export function num(el: XmlElement | null | undefined, ...path: string[]): D | null {
  const t = text(el, ...path);
  return t !== null && DECIMAL.test(t) ? new Dec(t.trim()) : null;
}

export const f5 = (d: D): string => d.toFixed(5);
export const sum = (ds: readonly (D | null)[]): D => ds.reduce<D>((a, b) => a.plus(b ?? ZERO), ZERO);

/**
 * The type of a comprobante: the one its NumeroConsecutivo names when that type is written under
 * this root, else the type of the root itself (whose code then differs from the consecutivo's,
 * which the clave check reports); null for a root no comprobante type has.
 */
export function typeOfDocument(root: XmlElement): DocumentTypeDescriptor | null {
  const name = root.localName ?? '';
  const comprobante = (d: DocumentTypeDescriptor | undefined) =>
    d && d.xml.root === name && d.xml.writer !== 'mensaje-receptor' ? d : null;
  const named = findDocumentType((text(root, 'NumeroConsecutivo') ?? '').slice(8, 10));
  return comprobante(named) ?? comprobante(documentTypeOfRoot(name));
}

/** Whether the type of code `tipo` is subject to a type-specific rule set. */
export const hasTypeCheck = (tipo: string | null, check: TypeCheck): boolean =>
  findDocumentType(tipo)?.checks.includes(check) ?? false;

/** The type whose code tables apply to a document of code `tipo` (its own, or the one it follows). */
export const rulesOf = (tipo: string): TipoComprobante | null => findDocumentType(tipo)?.rules ?? null;
