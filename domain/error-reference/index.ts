// The error reference: for every code of the catalogue (domain/errors.ts), what it means, the
// fields its answer names, how to fix the request and an example answer, Spanish (Costa Rica)
// first and English second. A code of the catalogue without an entry is a type error here. The
// API serves it at the URL each problem's `type` names (/docs/errors#<code>).
import { ERROR_CATALOGUE, type ErrorCode, type FieldError } from '../errors.ts';
import { ACCESS_ERRORS } from './access.ts';
import { COMPANY_ERRORS } from './company.ts';
import { DOCUMENT_ERRORS } from './documents.ts';
import type { ErrorReferenceEntry } from './entry.ts';
import { REQUEST_ERRORS } from './requests.ts';

export type { Bilingual, ErrorReferenceEntry } from './entry.ts';

export const ERROR_REFERENCE: { readonly [C in ErrorCode]: ErrorReferenceEntry } = {
  ...REQUEST_ERRORS,
  ...ACCESS_ERRORS,
  ...COMPANY_ERRORS,
  ...DOCUMENT_ERRORS,
};

/** The path of a code's own page, and the URL (with its fragment) every problem's `type` names. */
export const errorPagePath = (code: ErrorCode): string => `/docs/errors/${code}`;
export const errorTypeUrl = (code: ErrorCode): string => `/docs/errors#${code}`;

/** A problem+json answer as the API would give it for the code (without its request's instance and id). */
export interface ExampleProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: readonly FieldError[];
  [member: string]: unknown;
}

export function exampleProblem(code: ErrorCode): ExampleProblem {
  const entry = ERROR_REFERENCE[code];
  const { status, title } = ERROR_CATALOGUE[code];
  return {
    ...(entry.extra ?? {}),
    type: errorTypeUrl(code),
    title,
    status,
    detail: entry.detail,
    code,
    ...(entry.errors ? { errors: entry.errors } : {}),
  };
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, value);
}

/** The codes grouped by HTTP status, statuses ascending, codes in catalogue order. */
export function codesByStatus(): [number, ErrorCode[]][] {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of Object.keys(ERROR_CATALOGUE) as ErrorCode[]) {
    const status = ERROR_CATALOGUE[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b);
}
