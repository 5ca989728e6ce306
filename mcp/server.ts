// The assistant server: an MCP server whose tools and resources speak to the service over its
// REST API, through the typed client, with the key the assistant was given. What the key may do
// is what its scopes allow; a refusal comes back as the service's problem+json.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createFacturaClient } from '../client/src/index.ts';
import type { McpContext } from './context.ts';
import { registerResources } from './resources.ts';
import { registerInvoiceTools } from './tools/invoices.ts';
import { registerLookupTools } from './tools/lookups.ts';
import { registerNoteTools } from './tools/notes.ts';
import { registerPartyTools } from './tools/parties.ts';
import { registerRejectionTool } from './tools/rejections.ts';

export interface McpServerOptions {
  /** The service's address, e.g. http://127.0.0.1:3000. */
  apiUrl: string;
  /** An API key (ik_test_… or ik_live_…). */
  apiKey: string;
  /** Sent as User-Agent, so the service's logs say who called. */
  userAgent?: string;
  fetch?: typeof globalThis.fetch;
}

export const SERVER_INFO = { name: 'factura-cr', version: '1.0.0' };

export function createMcpServer(options: McpServerOptions): McpServer {
  const baseUrl = options.apiUrl.replace(/\/+$/, '');
  const fetch = options.fetch ?? globalThis.fetch;
  const ctx: McpContext = {
    baseUrl,
    fetch,
    factura: createFacturaClient({
      baseUrl,
      apiKey: options.apiKey,
      fetch,
      headers: { 'user-agent': options.userAgent ?? `factura-cr-mcp/${SERVER_INFO.version}` },
    }),
  };
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Facturación electrónica de Costa Rica (Hacienda v4.4) con la llave de API dada: emita ' +
      'comprobantes, consulte su estado y sus rechazos, y administre clientes. Los recursos ' +
      'factura://catalogues/* tienen los códigos. / Costa Rican electronic invoicing with the given API ' +
      'key: issue documents, follow their status and rejections, manage clients. The ' +
      'factura://catalogues/* resources hold the codes.',
  });
  registerInvoiceTools(server, ctx);
  registerNoteTools(server, ctx);
  registerRejectionTool(server, ctx);
  registerPartyTools(server, ctx);
  registerLookupTools(server, ctx);
  registerResources(server, ctx);
  return server;
}
