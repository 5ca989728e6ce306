// Whether Hacienda's IDP accepts an API user: one password grant (the same token client the
// workers use), then the session is ended. Resolves when accepted; throws HaciendaAuthError when
// the IDP refuses the credentials, HaciendaUnavailableError when it cannot be reached or fails.
import type { Transport } from './http.ts';
import { createTokenManager } from './token-manager.ts';

export interface CredentialsCheckOptions {
  idpUrl: string;
  clientId: string;
  username: string;
  password: string;
  /** Per-request timeout. Default 10 s: a person is waiting. */
  timeoutMs?: number;
  /** Retries of a grant the IDP did not answer. Default 1. */
  retries?: number;
  transport?: Transport;
}

export async function checkHaciendaCredentials(o: CredentialsCheckOptions): Promise<void> {
  const tokens = createTokenManager({
    idpUrl: o.idpUrl,
    clientId: o.clientId,
    username: o.username,
    password: o.password,
    timeoutMs: o.timeoutMs ?? 10_000,
    grantRetries: o.retries ?? 1,
    grantRetryDelayMs: 300,
    ...(o.transport ? { transport: o.transport } : {}),
  });
  await tokens.getAccessToken();
  await tokens.logout();
}
