// What every tool and resource is handed: the typed client of the service (its key and scopes are
// the assistant's) and the service's address, for what the client's paths do not cover.
import type { FacturaClient } from '../client/src/index.ts';

export interface McpContext {
  factura: FacturaClient;
  /** The service's address without a trailing slash, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** The fetch to reach the service's public documents (/docs/…). */
  fetch: typeof globalThis.fetch;
}
