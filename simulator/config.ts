// Environment of the standalone simulator (npm run sandbox): the only simulator module that reads
// process.env. The simulator is a program of its own (a stand-in for Hacienda), so it does not load
// the service's configuration (only the project's folder, for the XSDs): it needs none of its
// database, Redis or secrets.
// Every knob can be set as SIMULATOR_<KNOB_IN_SCREAMING_SNAKE_CASE>, e.g. processingDelayMs →
// SIMULATOR_PROCESSING_DELAY_MS, serverErrorRate → SIMULATOR_SERVER_ERROR_RATE. Also:
//   SIMULATOR_USERS  "user:password,user2:password2" (default: accept any credentials)
//   SIMULATOR_HOST   listen address (default 127.0.0.1)
//   SIMULATOR_PORT   listen port (default 4010; the service's sandbox URLs default to it too)
//   XSD_DIR          root of the official XSDs (default hacienda/xsd, shipped with the service); schema check when it exists
//   LOG_LEVEL        pino level (default info; silent when NODE_ENV=test)
//   SIMULATOR_CABYS_FILE   Hacienda's CABYS catalogue as text (CSV export of the published
//                    spreadsheet) to check every CodigoCABYS against, instead of the catalogue
//                    shipped in catalogues/ (the default)
//   SIMULATOR_TRUSTED_CA   PEM files (comma-separated) of further CAs whose certificates may sign,
//                    besides the sandbox CA; e.g. the CA of an integrator's own sandbox certificates
//   SIMULATOR_ADMIN_TOKEN  bearer token for the /_simulator endpoints (at least 16 characters);
//                    required when NODE_ENV=production, where those endpoints (which change knobs
//                    and forget documents) must not be open to whoever reaches the port
import { resolve } from 'node:path';
import { projectRoot } from '../config/index.ts';
import { cabysCodes } from '../domain/cabys.ts';
import { readCabysCatalogue, readPemCertificates } from './catalogue-files.ts';
import { KNOB_NAMES, knobKind, validateKnobs } from './knobs.ts';
import type { SimulatorKnobs } from './knobs.ts';

export class SimulatorConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'SimulatorConfigError';
  }
}

export interface SimulatorEnvConfig {
  host: string;
  port: number;
  /** Root of the official XSDs (may not exist: then the schema check is off). */
  xsdDir: string;
  logLevel: string;
  /** Bearer token of the /_simulator endpoints; null leaves them open (development, tests). */
  adminToken: string | null;
  users: Record<string, string> | null;
  knobs: Partial<SimulatorKnobs>;
  /** Codes of SIMULATOR_CABYS_FILE, else of the shipped official catalogue. */
  cabysCatalogue: ReadonlySet<string>;
  /** Where those codes come from (the startup banner says). */
  cabysSource: string;
  /** PEM certificates of SIMULATOR_TRUSTED_CA. */
  trustedCertificates: string[];
}

export const knobEnvName = (knob: string): string =>
  `SIMULATOR_${knob.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;

type Env = Record<string, string | undefined>;

function parseKnobs(env: Env): Partial<SimulatorKnobs> {
  const knobs: Record<string, number | boolean> = {};
  for (const name of KNOB_NAMES) {
    const variable = knobEnvName(name);
    const raw = env[variable];
    if (raw === undefined || raw === '') continue;
    if (knobKind(name) === 'bool') {
      const v = raw.toLowerCase();
      if (!['1', '0', 'true', 'false', 'yes', 'no'].includes(v))
        throw new SimulatorConfigError(variable, 'expected true or false');
      knobs[name] = ['1', 'true', 'yes'].includes(v);
    } else {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new SimulatorConfigError(variable, `expected a number, got "${raw}"`);
      knobs[name] = n;
    }
  }
  const checked = validateKnobs(knobs);
  if (!checked.ok) {
    const [first] = checked.errors;
    const knob = first?.split(':')[0] ?? '';
    throw new SimulatorConfigError(knobEnvName(knob), first?.slice(knob.length + 2) ?? 'invalid');
  }
  return checked.knobs;
}

function parseUsers(raw: string | undefined): Record<string, string> | null {
  if (!raw) return null;
  const users: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const at = pair.indexOf(':');
    if (at <= 0)
      throw new SimulatorConfigError('SIMULATOR_USERS', 'expected "user:password" pairs separated by commas');
    users[pair.slice(0, at).trim()] = pair.slice(at + 1);
  }
  return users;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 4010;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535)
    throw new SimulatorConfigError('SIMULATOR_PORT', `expected an integer 0..65535, got "${raw}"`);
  return n;
}

// Long enough not to be guessed by trying; `openssl rand -base64 24` gives 32 characters.
const MIN_ADMIN_TOKEN_LENGTH = 16;

function parseAdminToken(env: Env): string | null {
  const raw = env.SIMULATOR_ADMIN_TOKEN;
  if (raw === undefined || raw === '') {
    if (env.NODE_ENV === 'production')
      throw new SimulatorConfigError(
        'SIMULATOR_ADMIN_TOKEN',
        'required when NODE_ENV=production, to protect the /_simulator endpoints (openssl rand -base64 24)',
      );
    return null;
  }
  if (raw.length < MIN_ADMIN_TOKEN_LENGTH || /\s/.test(raw))
    throw new SimulatorConfigError(
      'SIMULATOR_ADMIN_TOKEN',
      `expected at least ${MIN_ADMIN_TOKEN_LENGTH} characters without spaces`,
    );
  return raw;
}

/** Reads a file named by a variable, turning any failure into a configuration error. */
function fromFile<T>(variable: string, path: string, read: (path: string) => T): T {
  try {
    return read(resolve(path));
  } catch (err) {
    throw new SimulatorConfigError(variable, err instanceof Error ? err.message : String(err));
  }
}

export function loadSimulatorConfig(env: Env = process.env): SimulatorEnvConfig {
  const cabysFile = env.SIMULATOR_CABYS_FILE;
  const caFiles = (env.SIMULATOR_TRUSTED_CA ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return {
    host: env.SIMULATOR_HOST || '127.0.0.1',
    port: parsePort(env.SIMULATOR_PORT),
    xsdDir: resolve(projectRoot, env.XSD_DIR || 'hacienda/xsd'),
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    adminToken: parseAdminToken(env),
    users: parseUsers(env.SIMULATOR_USERS),
    knobs: parseKnobs(env),
    cabysCatalogue: cabysFile
      ? fromFile('SIMULATOR_CABYS_FILE', cabysFile, readCabysCatalogue)
      : cabysCodes(),
    cabysSource: cabysFile ? 'SIMULATOR_CABYS_FILE' : 'catalogues/cabys.tsv.gz',
    trustedCertificates: caFiles.flatMap((f) => fromFile('SIMULATOR_TRUSTED_CA', f, readPemCertificates)),
  };
}
