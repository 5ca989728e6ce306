// Access tokens for Hacienda's reception API, one manager per (company, environment) so tokens are
// never shared across taxpayers (Hacienda's reception API). Keycloak OIDC: password grant to log in, refresh
// grant to renew; lifetimes come from expires_in / refresh_expires_in and are renewed ~30 s early.
// Only one renewal runs at a time: concurrent callers share the in-flight promise. When the
// refresh token is expired or refused, the manager logs in again with the password.
import { HaciendaAuthError, HaciendaUnavailableError } from './errors.ts';
import { fetchTransport, systemClock, TransportFailure } from './http.ts';
import type { Clock, FetchLike, Transport } from './http.ts';
import { nodeTransport } from './node-transport.ts';
import { withRetries } from './retry.ts';

export interface TokenManagerOptions {
  /** Full token endpoint URL (…/protocol/openid-connect/token). */
  idpUrl: string;
  clientId: string;
  username: string;
  password: string;
  /** Default: Node's http/https over keep-alive connections. */
  transport?: Transport;
  /** A fetch-like function to send with instead (tests); ignored when `transport` is given. */
  fetch?: FetchLike;
  clock?: Clock;
  /** Renew this long before expiry (capped at half the token's lifetime). Default 30 s. */
  refreshMarginMs?: number;
  /** Per-request timeout for the IDP. Default 15 s. */
  timeoutMs?: number;
  /** In-process retries of a grant the IDP did not answer (transport failure or 5xx). Default 2. */
  grantRetries?: number;
  /** Base delay between those retries (doubled each time). Default 500 ms. */
  grantRetryDelayMs?: number;
}

export interface TokenManager {
  /** A valid access token, renewing first when needed. */
  getAccessToken(): Promise<string>;
  /** Marks `token` as rejected (a 401): the next getAccessToken() renews unless already renewed. */
  invalidate(token: string): void;
  /** Ends the session at the IDP (best effort) and forgets the tokens. */
  logout(): Promise<void>;
  /** Counters for logs and tests. */
  readonly stats: { logins: number; refreshes: number };
}

interface TokenSet {
  accessToken: string;
  /** Epoch ms after which the access token is treated as expired (margin applied). */
  renewAt: number;
  refreshToken: string | null;
  /** Epoch ms after which the refresh token is not worth trying (margin applied); null = unknown. */
  refreshUsableUntil: number | null;
}

interface KeycloakTokenResponse {
  access_token?: unknown;
  expires_in?: unknown;
  refresh_token?: unknown;
  refresh_expires_in?: unknown;
  error?: unknown;
  error_description?: unknown;
}

const DEFAULT_MARGIN_MS = 30_000; // Hacienda's reception API: refresh ~30 s before expiry
const DEFAULT_TIMEOUT_MS = 15_000;
// Keycloak's default access-token lifetime, used only if the IDP omits expires_in.
const FALLBACK_LIFETIME_S = 300;

export function createTokenManager(options: TokenManagerOptions): TokenManager {
  const transport = options.transport ?? (options.fetch ? fetchTransport(options.fetch) : nodeTransport);
  const clock = options.clock ?? systemClock;
  const marginMs = options.refreshMarginMs ?? DEFAULT_MARGIN_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const stats = { logins: 0, refreshes: 0 };
  let current: TokenSet | null = null;
  let inFlight: Promise<TokenSet> | null = null;
  const ctx: GrantContext = {
    transport,
    clock,
    idpUrl: options.idpUrl,
    timeoutMs,
    margin: (lifetimeMs: number) => Math.min(marginMs, lifetimeMs / 2),
    retries: options.grantRetries ?? 2,
    retryDelayMs: options.grantRetryDelayMs ?? 500,
  };
  const grant = (form: Record<string, string>): Promise<TokenSet> => grantWithRetries(ctx, form);

  async function login(): Promise<TokenSet> {
    stats.logins += 1;
    return grant({
      grant_type: 'password',
      client_id: options.clientId,
      username: options.username,
      password: options.password,
    });
  }

  async function renew(): Promise<TokenSet> {
    const old = current;
    const refreshable =
      old?.refreshToken && (old.refreshUsableUntil === null || clock.now() < old.refreshUsableUntil);
    if (refreshable && old.refreshToken) {
      stats.refreshes += 1;
      try {
        return await grant({
          grant_type: 'refresh_token',
          client_id: options.clientId,
          refresh_token: old.refreshToken,
        });
      } catch (err) {
        // Keycloak answers 400 invalid_grant ("Token is not active") for an expired or revoked
        // refresh token; some deployments use 401. Either way the password still works.
        if (!(err instanceof HaciendaAuthError)) throw err;
      }
    }
    return login();
  }

  function renewOnce(): Promise<TokenSet> {
    inFlight ??= renew()
      .then((set) => {
        current = set;
        return set;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  }

  return {
    stats,
    async getAccessToken() {
      if (current && clock.now() < current.renewAt) return current.accessToken;
      return (await renewOnce()).accessToken;
    },
    invalidate(token) {
      if (current?.accessToken === token) current = { ...current, renewAt: 0 };
    },
    async logout() {
      const refreshToken = current?.refreshToken;
      current = null;
      if (!refreshToken) return;
      await endSession(transport, options, refreshToken, timeoutMs);
    },
  };
}

/** What one grant request needs: where and how to send it, and how early to renew its tokens. */
interface GrantContext {
  transport: Transport;
  clock: Clock;
  idpUrl: string;
  timeoutMs: number;
  margin: (lifetimeMs: number) => number;
  /** In-process retries of a grant the IDP did not answer, and the base delay between them. */
  retries: number;
  retryDelayMs: number;
}

// A grant is safe to repeat (at worst a second session): one the IDP did not answer (a transport
// failure or a 5xx) is tried again a few times; a 429 or a refusal is not.
function grantWithRetries(ctx: GrantContext, form: Record<string, string>): Promise<TokenSet> {
  return withRetries(
    () => grantOnce(ctx, form),
    (err) => err instanceof HaciendaUnavailableError && err.reason !== 'rate_limited',
    { retries: ctx.retries, baseDelayMs: ctx.retryDelayMs, clock: ctx.clock },
  );
}

/** One grant request: the token set, or HaciendaUnavailableError / HaciendaAuthError. */
async function grantOnce(ctx: GrantContext, form: Record<string, string>): Promise<TokenSet> {
  const requestedAt = ctx.clock.now();
  let res;
  try {
    res = await ctx.transport(
      ctx.idpUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(form).toString(),
      },
      ctx.timeoutMs,
    );
  } catch (err) {
    const kind = err instanceof TransportFailure ? err.kind : 'network';
    throw new HaciendaUnavailableError(
      `Hacienda IDP unreachable (${kind})`,
      kind === 'refused' ? 'connection_refused' : kind,
      null,
      null,
      { cause: err },
    );
  }
  let body: KeycloakTokenResponse = {};
  try {
    body = JSON.parse(res.text) as KeycloakTokenResponse;
  } catch {
    // Non-JSON answers (proxies, HTML error pages) are handled by status below.
  }
  if (res.status >= 500 || res.status === 429) {
    throw new HaciendaUnavailableError(
      `Hacienda IDP answered ${res.status}`,
      res.status === 429 ? 'rate_limited' : 'server_error',
      res.status,
    );
  }
  if (res.status !== 200 || typeof body.access_token !== 'string') {
    const error = typeof body.error === 'string' ? body.error : null;
    const description = typeof body.error_description === 'string' ? body.error_description : null;
    throw new HaciendaAuthError(
      `Hacienda IDP refused the ${form.grant_type} grant: ${res.status} ${error ?? ''} ${description ?? ''}`.trim(),
      res.status,
      error,
      description,
    );
  }
  return tokenSet(body.access_token, body, requestedAt, ctx.margin);
}

/** The tokens of a granted answer, with the times (margin applied) they are renewed at. */
function tokenSet(
  accessToken: string,
  body: KeycloakTokenResponse,
  requestedAt: number,
  margin: (lifetimeMs: number) => number,
): TokenSet {
  const lifetimeMs = positiveSeconds(body.expires_in, FALLBACK_LIFETIME_S) * 1000;
  const refreshSeconds = positiveSeconds(body.refresh_expires_in, 0);
  const refreshToken = typeof body.refresh_token === 'string' ? body.refresh_token : null;
  return {
    accessToken,
    renewAt: requestedAt + lifetimeMs - margin(lifetimeMs),
    refreshToken,
    // refresh_expires_in 0 (or absent) means "no known expiry": try it and fall back to login.
    refreshUsableUntil:
      refreshSeconds > 0 ? requestedAt + refreshSeconds * 1000 - margin(refreshSeconds * 1000) : null,
  };
}

/** Ends the session at the IDP's logout endpoint, best effort. */
async function endSession(
  transport: Transport,
  options: TokenManagerOptions,
  refreshToken: string,
  timeoutMs: number,
): Promise<void> {
  const logoutUrl = options.idpUrl.replace(/\/token$/, '/logout');
  try {
    await transport(
      logoutUrl,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: options.clientId,
          refresh_token: refreshToken,
        }).toString(),
      },
      timeoutMs,
    );
  } catch {
    // Best effort: the session expires on its own.
  }
}

function positiveSeconds(v: unknown, fallback: number): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : fallback;
}
