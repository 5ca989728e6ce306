// What the error reference says about one code, Spanish (Costa Rica) first and English second.
// The status and English title stay in the catalogue (domain/errors.ts); an entry adds the
// explanation, the fields the answer names and an example `detail` as the API writes it.
import type { ErrorCode, FieldError } from '../errors.ts';

/** A text in Spanish (Costa Rica) and English. */
export interface Bilingual {
  readonly es: string;
  readonly en: string;
}

export interface ErrorReferenceEntry {
  /** The title in Spanish (the answer's `title` is the catalogue's English one). */
  readonly titleEs: string;
  /** What the answer means: when the service gives it. */
  readonly means: Bilingual;
  /**
   * What the answer carries about the request: JSON Pointers or `header:` names as they come in
   * `errors[].path`, members of the problem beside the standard ones (`required_scope`,
   * `balance_due`, …) and response headers (`Retry-After`, `WWW-Authenticate`).
   */
  readonly fields: readonly string[];
  /** How to fix the request (or what to wait for). */
  readonly fix: Bilingual;
  /** The example answer's `detail`, as the API writes it. */
  readonly detail: string;
  /** For answers that name fields: the example `errors` array. */
  readonly errors?: readonly FieldError[];
  /** Members the example answer carries beside the standard ones. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** A part of the reference: entries for some codes of the catalogue, no other keys. */
export type ReferencePart<C extends ErrorCode> = { readonly [K in C]: ErrorReferenceEntry };

/** Shorthand for the texts of one entry. */
export const say = (es: string, en: string): Bilingual => ({ es, en });
