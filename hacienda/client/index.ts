// Public surface of the Hacienda reception client: token managers, the reception API client and
// the submit-then-confirm helper, plus the error classes callers branch on.
export * from './errors.ts';
export { createTokenManager } from './token-manager.ts';
export type { TokenManager, TokenManagerOptions } from './token-manager.ts';
export { createTokenPool } from './token-pool.ts';
export type { HaciendaEnvironment, TokenPool, TokenPoolKey } from './token-pool.ts';
export { createReceptionClient, TERMINAL_STATES } from './reception-client.ts';
export type {
  Identification,
  ReceptionClient,
  ReceptionClientOptions,
  ReceptionState,
  StatusResult,
  SubmitDocument,
  SubmitResult,
} from './reception-client.ts';
export { submitAndConfirm } from './submit-and-confirm.ts';
export { checkHaciendaCredentials } from './credentials-check.ts';
export type { CredentialsCheckOptions } from './credentials-check.ts';
export type { Confirmed, SubmitAndConfirmOptions } from './submit-and-confirm.ts';
export { systemClock } from './http.ts';
export type { Clock, FetchLike, RateLimitInfo } from './http.ts';
