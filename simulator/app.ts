// The Hacienda simulator as a Fastify app factory: the IDP token endpoints, the reception API at
// the sandbox and production bases, and the /_simulator admin endpoints. It never listens and
// never reads the environment (main.ts does both). Knobs can be passed flat in the options.
import { cabysCodes } from '../domain/cabys.ts';
import { X509Certificate } from 'node:crypto';
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { SigningMaterial } from '../hacienda/signing-key.ts';
import { createSigner } from '../hacienda/signer.ts';
import { postCallback } from './callback-post.ts';
import type { CallbackPost } from './callback-post.ts';
import type { XadesSigner } from '../hacienda/signer.ts';
import { SANDBOX_CA_CERTIFICATE_PEM } from '../hacienda/sandbox-ca.ts';
import { createTestCertificate } from '../hacienda/test-certificates.ts';
import { registerAdminRoutes } from './admin-routes.ts';
import { createSchemaChecker } from './checks/schema.ts';
import type { SimulatorContext } from './context.ts';
import { createControl } from './control.ts';
import type { SimulatorControl } from './control.ts';
import { registerIdpRoutes } from './idp-routes.ts';
import { DEFAULT_KNOBS, KNOB_NAMES, validateKnobs } from './knobs.ts';
import type { SimulatorKnobs } from './knobs.ts';
import { createProcessor } from './processing.ts';
import { seededRandom } from './random.ts';
import { createRateLimiter } from './rate-limit.ts';
import { registerReceptionRoutes } from './reception-routes.ts';
import { registerPublicDataRoutes } from './public-data-routes.ts';
import type { SimTaxpayer } from './public-data.ts';
import { DocumentStore, newCounters } from './store.ts';
import { createTokenIssuer } from './tokens.ts';

export interface SimulatorOptions extends Partial<SimulatorKnobs> {
  /** Accepted username → password. Default: any non-empty username and password. */
  users?: Record<string, string> | null;
  /** Root of the official XSDs (`<dir>/2026/v4.4/…`); without it the schema check is skipped. */
  schemaDir?: string | null;
  /** The simulator's own signing key; default: a sandbox certificate for the Ministerio de Hacienda. */
  signingMaterial?: SigningMaterial;
  /** Clock for token expiry, processing states and rate windows (timers still use real time). */
  now?: () => number;
  /** Hacienda's callback POST; default Node's http with keep-alive connections. */
  postCallback?: CallbackPost;
  logger?: FastifyServerOptions['logger'];
  /**
   * Hacienda's published CABYS codes; default: the official catalogue shipped in catalogues/;
   * null: only the 13-digit format is checked.
   */
  cabysCatalogue?: ReadonlySet<string> | null;
  /**
   * Certificates (PEM text or DER) of further CAs whose certificates may sign, besides the
   * sandbox CA (hacienda/sandbox-ca.ts) that is always trusted.
   */
  trustedCertificates?: readonly (string | Buffer)[];
  /** Taxpayers the public register knows besides public-data.ts's seeded ones. */
  taxpayers?: readonly SimTaxpayer[];
  /** Register the /_simulator endpoints (default true). */
  admin?: boolean;
  /**
   * When set, every /_simulator endpoint wants `Authorization: Bearer <adminToken>` (401 otherwise).
   * main.ts requires one when NODE_ENV=production (SIMULATOR_ADMIN_TOKEN).
   */
  adminToken?: string | null;
}

export type SimulatorApp = FastifyInstance & { simulator: SimulatorControl };

// The Ministerio de Hacienda's cédula jurídica, as in its real "sello electrónico" certificate.
export const HACIENDA_IDENTITY = {
  idType: '02',
  idNumber: '2100042005',
  name: 'MINISTERIO DE HACIENDA',
} as const;

let defaultSigner: Promise<XadesSigner> | null = null;
/** One sandbox certificate per process for every simulator that is not given its own key. */
function haciendaSigner(): Promise<XadesSigner> {
  defaultSigner ??= createTestCertificate(HACIENDA_IDENTITY).then((c) => createSigner(c.material));
  defaultSigner.catch(() => {
    defaultSigner = null;
  });
  return defaultSigner;
}

export async function buildSimulator(options: SimulatorOptions = {}): Promise<SimulatorApp> {
  const given: Record<string, unknown> = {};
  for (const name of KNOB_NAMES) if (options[name] !== undefined) given[name] = options[name];
  const v = validateKnobs(given);
  if (!v.ok) throw new RangeError(`invalid simulator knobs: ${v.errors.join('; ')}`);
  const knobs: SimulatorKnobs = { ...DEFAULT_KNOBS, ...v.knobs };
  const now = options.now ?? (() => Date.now());

  const app = Fastify({ logger: options.logger ?? false, forceCloseConnections: true });
  await app.register(formbody);
  const material = options.signingMaterial;
  let signer: Promise<XadesSigner> | null = null;
  const ctx: SimulatorContext = {
    knobs,
    now,
    random: seededRandom(knobs.seed),
    tokens: createTokenIssuer(now),
    users: options.users ? new Map(Object.entries(options.users)) : null,
    store: new DocumentStore(),
    counters: newCounters(),
    limiter: createRateLimiter(now),
    cabys: options.cabysCatalogue === undefined ? cabysCodes() : options.cabysCatalogue,
    trustedCas: [SANDBOX_CA_CERTIFICATE_PEM, ...(options.trustedCertificates ?? [])].map(
      (c) => new X509Certificate(c),
    ),
    schema: options.schemaDir
      ? createSchemaChecker(options.schemaDir, (reason) => app.log.warn({ reason }, 'schema check disabled'))
      : null,
    get signer() {
      signer ??= material ? createSigner(material) : haciendaSigner();
      return signer;
    },
    postCallback: options.postCallback ?? postCallback,
    log: app.log,
    timers: new Set(),
    hanging: new Set(),
    closing: false,
  };
  const processor = createProcessor(ctx);
  const control = createControl(ctx, processor);

  app.addHook('onRequest', async (request) => {
    if (ctx.knobs.latencyMs > 0 && !request.url.startsWith('/_simulator')) {
      await new Promise((resolve) => setTimeout(resolve, ctx.knobs.latencyMs));
    }
  });
  app.addHook('preClose', async () => {
    ctx.closing = true;
    for (const kill of [...ctx.hanging]) kill();
  });
  app.addHook('onClose', async () => {
    for (const t of ctx.timers) clearTimeout(t);
    ctx.timers.clear();
    ctx.schema?.close();
  });

  registerIdpRoutes(app, ctx);
  registerReceptionRoutes(app, ctx, processor);
  registerPublicDataRoutes(app, ctx, options.taxpayers);
  if (options.admin !== false) registerAdminRoutes(app, control, options.adminToken ?? null);
  app.decorate('simulator', control);
  return app as unknown as SimulatorApp;
}
