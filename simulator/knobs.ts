// The simulator's knobs: fault injection and timing, settable at build time, through
// POST /_simulator/config while running, or from the environment by main.ts (see config.ts).
// Rates are shares in [0, 1]; times in milliseconds unless the name says seconds.

export interface SimulatorKnobs {
  /** Added to every IDP and API response. */
  latencyMs: number;
  /** From recibido to aceptado/rechazado (procesando from half-way). */
  processingDelayMs: number;
  /** Share of API requests answered with a 5xx (500/502/503/504). */
  serverErrorRate: number;
  /** Share of API requests left hanging until the client gives up. */
  timeoutRate: number;
  /** How long a hanging request is held before its socket is destroyed. */
  timeoutHangMs: number;
  /** Of the POSTs that fail by 5xx or hang, the share whose document was stored anyway. */
  storeOnFailureRate: number;
  /** Share of API requests answered 429 with Retry-After / X-Ratelimit-Reset. */
  rateLimitedRate: number;
  /** Retry-After of an injected 429. */
  retryAfterSeconds: number;
  /** Real fixed-window limit per user (API) or client address (IDP). */
  rateLimitPerWindow: number;
  rateLimitWindowMs: number;
  /** Access-token lifetime; a fraction is honoured but expires_in is rounded up, as a skewed clock would. */
  tokenLifetimeSeconds: number;
  refreshLifetimeSeconds: number;
  /** Share of documents rejected with -37 (ubicación) regardless of content, chosen by clave hash. */
  forcedRejectionRate: number;
  /** Share of documents that end in ind-estado "error" without respuesta-xml, by clave hash. */
  errorStateRate: number;
  /** Share of POSTs answered 202 whose document is then lost: never processed, GET answers 404. */
  lostDocumentRate: number;
  /** Seed of the generator behind every injected fault. */
  seed: number;
  checkSignature: boolean;
  /** XSD validation (xmllint, batched); the costliest check. */
  checkSchema: boolean;
  checkTotals: boolean;
  checkClave: boolean;
  checkConsecutivo: boolean;
  /** FechaEmision further in the future than this is rejected with -53 (hora oficial). */
  maxClockSkewMs: number;
  // Business rules (checks/business-rules.ts, codes and texts in checks/rule-texts.ts).
  checkIssueDate: boolean;
  /**
   * FechaEmision older than this: accepted with the observation -16 (extemporáneo), as Hacienda
   * does (v4.2–4.4); its window is not published.
   */
  maxDocumentAgeMs: number;
  /**
   * Accept every document whose Emisor has a Ubicacion with the observation -37 (provincia, cantón
   * and distrito not as registered): the simulator holds no taxpayer registry to compare with.
   */
  observeLocation: boolean;
  checkIdentification: boolean;
  checkLocation: boolean;
  checkActivityCode: boolean;
  checkCreditTerm: boolean;
  checkLineNumbers: boolean;
  checkCabys: boolean;
  checkTariffRate: boolean;
  checkTariffDocumentType: boolean;
  checkExonerations: boolean;
  checkOtherCharges: boolean;
  checkExchangeRate: boolean;
  checkTaxBreakdown: boolean;
  checkPaymentMethods: boolean;
  checkReferences: boolean;
  checkOtherTexts: boolean;
  /** A factura de exportación's receptor and tax treatment (checks/rules-exports.ts). */
  checkExportRules: boolean;
  // Signature requirements beyond the cryptography (checks/signature-rules.ts).
  checkSignaturePolicy: boolean;
  checkSignerRole: boolean;
  checkSigningTime: boolean;
  checkCertificate: boolean;
  /** Sign each MensajeHacienda (lazily, on first read). Off only for pure load tests. */
  signResponses: boolean;
  callbackTimeoutMs: number;
  // The public services (public-data-routes.ts): taxpayer register and dollar rate.
  /** Every public-data request answered 503, as when Hacienda's service is down. */
  publicDataDown: boolean;
  /** Every taxpayer lookup answered 404. */
  taxpayersNotFound: boolean;
  /** Added to every public-data answer (on top of latencyMs). */
  publicDataLatencyMs: number;
}

export const DEFAULT_KNOBS: Readonly<SimulatorKnobs> = Object.freeze({
  latencyMs: 0,
  processingDelayMs: 1_000,
  serverErrorRate: 0,
  timeoutRate: 0,
  // Longer than any sensible client timeout, so the client is the one that gives up.
  timeoutHangMs: 120_000,
  storeOnFailureRate: 0.5,
  rateLimitedRate: 0,
  retryAfterSeconds: 1,
  // Hacienda does not publish its limits; high enough not to get in the way of load tests.
  rateLimitPerWindow: 10_000,
  rateLimitWindowMs: 1_000,
  // Keycloak's default access lifetime and the refresh lifetime seen in a decoded sandbox token.
  tokenLifetimeSeconds: 300,
  refreshLifetimeSeconds: 1_800,
  forcedRejectionRate: 0,
  errorStateRate: 0,
  lostDocumentRate: 0,
  seed: 1,
  checkSignature: true,
  checkSchema: true,
  checkTotals: true,
  checkClave: true,
  checkConsecutivo: true,
  maxClockSkewMs: 10 * 60_000,
  checkIssueDate: true,
  // Ours: three days, room for a contingency over a long weekend.
  maxDocumentAgeMs: 3 * 24 * 3600_000,
  observeLocation: false,
  checkIdentification: true,
  checkLocation: true,
  checkActivityCode: true,
  checkCreditTerm: true,
  checkLineNumbers: true,
  checkCabys: true,
  checkTariffRate: true,
  checkTariffDocumentType: true,
  checkExonerations: true,
  checkOtherCharges: true,
  checkExchangeRate: true,
  checkTaxBreakdown: true,
  checkPaymentMethods: true,
  checkReferences: true,
  checkOtherTexts: true,
  checkExportRules: true,
  checkSignaturePolicy: true,
  checkSignerRole: true,
  checkSigningTime: true,
  checkCertificate: true,
  signResponses: true,
  callbackTimeoutMs: 10_000,
  publicDataDown: false,
  taxpayersNotFound: false,
  publicDataLatencyMs: 0,
});

type Kind = 'rate' | 'ms' | 'seconds' | 'int' | 'bool';
const KINDS: Record<keyof SimulatorKnobs, Kind> = {
  latencyMs: 'ms',
  processingDelayMs: 'ms',
  serverErrorRate: 'rate',
  timeoutRate: 'rate',
  timeoutHangMs: 'ms',
  storeOnFailureRate: 'rate',
  rateLimitedRate: 'rate',
  retryAfterSeconds: 'seconds',
  rateLimitPerWindow: 'int',
  rateLimitWindowMs: 'ms',
  tokenLifetimeSeconds: 'seconds',
  refreshLifetimeSeconds: 'seconds',
  forcedRejectionRate: 'rate',
  errorStateRate: 'rate',
  lostDocumentRate: 'rate',
  seed: 'int',
  checkSignature: 'bool',
  checkSchema: 'bool',
  checkTotals: 'bool',
  checkClave: 'bool',
  checkConsecutivo: 'bool',
  maxClockSkewMs: 'ms',
  checkIssueDate: 'bool',
  maxDocumentAgeMs: 'ms',
  observeLocation: 'bool',
  checkIdentification: 'bool',
  checkLocation: 'bool',
  checkActivityCode: 'bool',
  checkCreditTerm: 'bool',
  checkLineNumbers: 'bool',
  checkCabys: 'bool',
  checkTariffRate: 'bool',
  checkTariffDocumentType: 'bool',
  checkExonerations: 'bool',
  checkOtherCharges: 'bool',
  checkExchangeRate: 'bool',
  checkTaxBreakdown: 'bool',
  checkPaymentMethods: 'bool',
  checkReferences: 'bool',
  checkOtherTexts: 'bool',
  checkExportRules: 'bool',
  checkSignaturePolicy: 'bool',
  checkSignerRole: 'bool',
  checkSigningTime: 'bool',
  checkCertificate: 'bool',
  signResponses: 'bool',
  callbackTimeoutMs: 'ms',
  publicDataDown: 'bool',
  taxpayersNotFound: 'bool',
  publicDataLatencyMs: 'ms',
};

export const KNOB_NAMES = Object.keys(KINDS) as (keyof SimulatorKnobs)[];

export type KnobsResult = { ok: true; knobs: Partial<SimulatorKnobs> } | { ok: false; errors: string[] };

/** Validates a partial knob set (from JSON or parsed environment values). Unknown names are errors. */
export function validateKnobs(input: unknown): KnobsResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: ['expected an object of knobs'] };
  }
  const errors: string[] = [];
  const knobs: Record<string, number | boolean> = {};
  for (const [name, value] of Object.entries(input)) {
    const kind = KINDS[name as keyof SimulatorKnobs];
    if (!kind) {
      errors.push(`${name}: unknown knob`);
      continue;
    }
    const problem = check(kind, value);
    if (problem) errors.push(`${name}: ${problem}`);
    else knobs[name] = value as number | boolean;
  }
  return errors.length ? { ok: false, errors } : { ok: true, knobs: knobs as Partial<SimulatorKnobs> };
}

export function knobKind(name: keyof SimulatorKnobs): Kind {
  return KINDS[name];
}

function check(kind: Kind, v: unknown): string | null {
  if (kind === 'bool') return typeof v === 'boolean' ? null : 'expected true or false';
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'expected a number';
  switch (kind) {
    case 'rate':
      return v >= 0 && v <= 1 ? null : 'expected a share between 0 and 1';
    case 'ms':
      return Number.isInteger(v) && v >= 0 ? null : 'expected whole milliseconds ≥ 0';
    case 'seconds':
      return v > 0 ? null : 'expected seconds > 0';
    case 'int':
      return Number.isInteger(v) && v >= 0 ? null : 'expected a whole number ≥ 0';
  }
}
