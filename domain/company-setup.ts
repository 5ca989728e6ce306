// The rules of setting a company up, shared by the API and the command-line tool: its email
// delivery settings, its sucursales and terminales (positions 1-3 and 4-8 of the consecutivo), and
// the go-live checklist (what a company must have before it works in live mode).
import type { FieldError } from './errors.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** An address the service may send from or copy to (the emisor's CorreoElectronico length). */
export const isEmailAddress = (a: unknown): a is string =>
  typeof a === 'string' && a.length <= 160 && EMAIL.test(a);

export interface EmailDeliveryFields {
  replyTo?: string | null;
  bcc?: string[];
}

/** Reply-to and blind copies: addresses, at most 4 copies. `base` prefixes the paths. */
export function validateEmailDelivery(s: EmailDeliveryFields, base = ''): FieldError[] {
  const errors: FieldError[] = [];
  const invalid = (path: string) =>
    errors.push({
      path,
      code: 'invalid_format',
      message: 'no es un correo electrónico (not an email address)',
    });
  if (s.replyTo !== undefined && s.replyTo !== null && !isEmailAddress(s.replyTo))
    invalid(`${base}/reply_to`);
  if (s.bcc !== undefined) {
    if (s.bcc.length > 4)
      errors.push({
        path: `${base}/bcc`,
        code: 'too_many',
        message: 'a lo sumo 4 copias (at most 4 addresses)',
      });
    s.bcc.forEach((a, i) => {
      if (!isEmailAddress(a)) invalid(`${base}/bcc/${i}`);
    });
  }
  return errors;
}

export const BRANCH_CODE = /^\d{3}$/;
export const TERMINAL_CODE = /^\d{5}$/;

export interface BranchDefinition {
  code: string;
  name: string;
  terminals: { code: string; name: string }[];
}

/** A branch's own rules: a name, terminals with distinct codes and names. `base` prefixes the paths. */
export function validateBranch(b: BranchDefinition, base = ''): FieldError[] {
  const errors: FieldError[] = [];
  if (b.name.trim().length < 1 || b.name.length > 80)
    errors.push({
      path: `${base}/name`,
      code: 'invalid_length',
      message: 'de 1 a 80 caracteres (1 to 80 characters)',
    });
  const seen = new Set<string>();
  b.terminals.forEach((t, i) => {
    if (seen.has(t.code))
      errors.push({
        path: `${base}/terminals/${i}/code`,
        code: 'duplicate_terminal',
        message: `la terminal ${t.code} está repetida (terminal ${t.code} is listed twice)`,
      });
    seen.add(t.code);
    if (t.name.trim().length < 1 || t.name.length > 80)
      errors.push({
        path: `${base}/terminals/${i}/name`,
        code: 'invalid_length',
        message: 'de 1 a 80 caracteres (1 to 80 characters)',
      });
  });
  return errors;
}

/**
 * Once any branch is defined, the company's default branch must be one of them and hold the
 * default terminal (documents without a branch are numbered there). No branches: anything goes.
 */
export function defaultsProblems(
  branches: readonly BranchDefinition[],
  defaults: { branch: string; terminal: string },
  paths: { branch: string; terminal: string },
): FieldError[] {
  if (branches.length === 0) return [];
  const branch = branches.find((b) => b.code === defaults.branch);
  if (!branch)
    return [
      {
        path: paths.branch,
        code: 'unknown_branch',
        message:
          `la sucursal predeterminada ${defaults.branch} no está entre las definidas ` +
          `(the default branch ${defaults.branch} is not among the defined ones: ${branches.map((b) => b.code).join(', ')})`,
      },
    ];
  if (!branch.terminals.some((t) => t.code === defaults.terminal))
    return [
      {
        path: paths.terminal,
        code: 'unknown_terminal',
        message:
          `la terminal predeterminada ${defaults.terminal} no está en la sucursal ${branch.code} ` +
          `(the default terminal ${defaults.terminal} is not in branch ${branch.code})`,
      },
    ];
  return [];
}

/** Where a document is numbered, when the company has defined its branches: both must exist. */
export function numberingPlaceProblems(
  branches: readonly BranchDefinition[],
  branch: string,
  terminal: string,
): FieldError[] {
  if (branches.length === 0) return [];
  const b = branches.find((x) => x.code === branch);
  if (!b)
    return [
      {
        path: '/branch',
        code: 'unknown_branch',
        message: `la sucursal ${branch} no está definida (branch ${branch} is not defined)`,
      },
    ];
  if (!b.terminals.some((t) => t.code === terminal))
    return [
      {
        path: '/terminal',
        code: 'unknown_terminal',
        message: `la terminal ${terminal} no está en la sucursal ${branch} (terminal ${terminal} is not in branch ${branch})`,
      },
    ];
  return [];
}

export const GO_LIVE_ITEMS = ['live_certificate', 'live_credentials', 'sandbox_document_accepted'] as const;
export type GoLiveItem = (typeof GO_LIVE_ITEMS)[number];

export const GO_LIVE_LABELS: Record<GoLiveItem, { es: string; en: string }> = {
  live_certificate: {
    es: 'Llave criptográfica de producción vigente',
    en: 'A current production signing certificate',
  },
  live_credentials: {
    es: 'Usuario de la API de Hacienda de producción aceptado por Hacienda',
    en: "Production Hacienda API credentials accepted by Hacienda's IDP",
  },
  sandbox_document_accepted: {
    es: 'Un comprobante de pruebas aceptado por el simulador de Hacienda',
    en: 'A sandbox document accepted by the Hacienda sandbox',
  },
};

export interface GoLiveFacts {
  liveCertificateNotAfter: Date | null;
  liveCredentialsVerifiedAt: Date | null;
  sandboxDocumentAccepted: boolean;
}

/** The checklist, in its fixed order, and whether every item is done. */
export function goLiveChecklist(facts: GoLiveFacts, now: Date = new Date()) {
  const done: Record<GoLiveItem, boolean> = {
    live_certificate: facts.liveCertificateNotAfter !== null && facts.liveCertificateNotAfter > now,
    live_credentials: facts.liveCredentialsVerifiedAt !== null,
    sandbox_document_accepted: facts.sandboxDocumentAccepted,
  };
  const checklist = GO_LIVE_ITEMS.map((item) => ({
    item,
    done: done[item],
    label_es: GO_LIVE_LABELS[item].es,
    label_en: GO_LIVE_LABELS[item].en,
  }));
  return { ready: checklist.every((c) => c.done), checklist };
}
