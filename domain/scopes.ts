// API key scopes and plans. A key holds a set of scopes; a route requires one. Plans decide
// whether a company may use the API at all and its default request rate.
export const SCOPES = [
  'read:invoices',
  'write:invoices',
  'write:drafts',
  'read:clients',
  'write:clients',
  'write:payments',
  'read:services',
  'write:services',
  'manage:webhooks',
  'manage:keys',
  'read:company',
  'read:usage',
  'manage:company',
  'manage:members',
  'answer:received',
  'read:reports',
  'read:audit',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(v: string): v is Scope {
  return (SCOPES as readonly string[]).includes(v);
}

/**
 * The scopes of `wanted` that `held` lacks. A key may create, roll or revoke only keys whose every
 * scope it holds itself: otherwise a `manage:keys` key could mint, take over (roll: the new secret
 * is handed to the caller) or lock out a key more powerful than itself.
 */
export function missingScopes(held: readonly string[], wanted: readonly string[]): string[] {
  return wanted.filter((s) => !held.includes(s));
}

export const PLANS = ['pyme', 'pro', 'business', 'corporate'] as const;
export type Plan = (typeof PLANS)[number];

/** Plans that include the REST API (the others get 403 plan_not_included). */
export function planIncludesApi(plan: string): boolean {
  return plan === 'business' || plan === 'corporate';
}

/** Default request rate per company and mode (all its keys together), per plan (requests per second). */
export const PLAN_RATE_LIMITS: Record<Plan, number> = { pyme: 0, pro: 0, business: 50, corporate: 500 };

/** Requests per second of a company in one mode, all keys together: its own figure, else its plan's. */
export function companyRateLimit(plan: string, own: number | null): number {
  if (own && own > 0) return own;
  return PLAN_RATE_LIMITS[plan as Plan] || PLAN_RATE_LIMITS.business;
}

/** API key secrets: `ik_live_` / `ik_test_` and at least 32 base62 characters. */
export const API_KEY_RE = /^ik_(live|test)_[0-9A-Za-z]{32,128}$/;
