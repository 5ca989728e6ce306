// `npm run mcp`: the assistant server on stdio. It reads FACTURA_API_URL (default
// http://127.0.0.1:3000) and FACTURA_API_KEY, and speaks the Model Context Protocol on stdin and
// stdout; anything for people goes to stderr, never stdout (that is the protocol's channel).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server.ts';

const DEFAULT_URL = 'http://127.0.0.1:3000';
const KEY_RE = /^ik_(live|test)_[0-9A-Za-z]{32,128}$/;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const apiUrl = process.env.FACTURA_API_URL?.trim() || DEFAULT_URL;
const apiKey = process.env.FACTURA_API_KEY?.trim() ?? '';
if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol))
  fail(`FACTURA_API_URL no es una dirección http(s) / is not an http(s) address: ${apiUrl}`);
if (!KEY_RE.test(apiKey))
  fail(
    'Falta FACTURA_API_KEY o no es una llave ik_live_…/ik_test_… / FACTURA_API_KEY is missing or not a key',
  );

const server = createMcpServer({ apiUrl, apiKey });
await server.connect(new StdioServerTransport());
process.stderr.write(`factura-cr MCP: ${apiUrl} (${apiKey.slice(0, 8)}…)\n`);

const stop = () => {
  void server.close().finally(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
