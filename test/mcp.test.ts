// The assistant server (mcp/, `npm run mcp`) against the running service: the API on a real port,
// the workers and the Hacienda simulator. The server is started as its own process (node with
// tsx, mcp/main.ts) and driven through the MCP SDK's Client over stdio, with a key of every scope
// and with a read-only key: its tools issue an invoice that Hacienda accepts, a draft sent later
// and a credit note, explain a forced rejection, look CABYS codes up, create and find a client;
// its resources are read from the service; the read-only key reads but is refused when issuing,
// with the service's 403 code and the scope it lacks.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { createApiKey } from '../db/queries/api-keys.ts';
import { formatId } from '../domain/ids.ts';
import { SCOPES } from '../domain/scopes.ts';
import { seedIssuer, startE2E, type E2E } from './helpers/e2e.ts';

const TOOLS = [
  'create_client',
  'create_draft',
  'explain_rejection',
  'find_clients',
  'get_company',
  'get_exchange_rate',
  'get_invoice',
  'issue_credit_note',
  'issue_debit_note',
  'issue_invoice',
  'list_invoices',
  'list_services',
  'lookup_taxpayer',
  'search_cabys',
  'send_draft',
];

let e: E2E;
let s: Awaited<ReturnType<typeof seedIssuer>>;
let full: Client;
let readOnly: Client;
const stderr: string[] = [];

/** The MCP server as an assistant starts it: its own process on stdio, with the service and a key. */
async function connect(key: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'mcp/main.ts'],
    cwd: projectRoot,
    env: { ...(process.env as Record<string, string>), FACTURA_API_URL: e.apiUrl, FACTURA_API_KEY: key },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (b: Buffer) => stderr.push(b.toString()));
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const texts = result.content.map((c) => (c.type === 'text' ? c.text : ''));
  return { isError: result.isError === true, texts, json: JSON.parse(texts.at(-1)!) };
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(client, name, args);
  expect(r.isError, `${name}: ${r.texts[0]}`).toBe(false);
  return r.json;
}

beforeAll(async () => {
  e = await startE2E();
  s = await seedIssuer(e.db, e.config);
  const readScopes = SCOPES.filter((x) => x.startsWith('read:'));
  const { secret } = await createApiKey(e.db, {
    companyId: s.company.id,
    livemode: false,
    name: 'assistant read-only',
    scopes: [...readScopes],
  });
  [full, readOnly] = await Promise.all([connect(s.key), connect(secret)]);
}, 120_000);

afterAll(async () => {
  await full?.close();
  await readOnly?.close();
  await e?.close();
});

describe('the MCP server over stdio', () => {
  it('lists its tools, each described in Spanish then English, and its catalogue resources', async () => {
    const { tools } = await full.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const t of tools) expect(t.description, t.name).toMatch(/^[A-ZÁÉÍÓÚ].*\. \/ [A-Z]/);
    const issue = tools.find((t) => t.name === 'issue_invoice')!;
    expect(issue.inputSchema.required).toEqual(['lines']);
    const { resources } = await full.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      'factura://catalogues/document-types',
      'factura://catalogues/identification-types',
      'factura://catalogues/iva-rates',
      'factura://catalogues/payment-methods',
      'factura://catalogues/sale-conditions',
      'factura://errors',
    ]);
    const { resourceTemplates } = await full.listResourceTemplates();
    expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['factura://errors/{code}']);
  });

  it('issues an invoice that Hacienda accepts, then reads and lists it', async () => {
    const created = await ok(full, 'issue_invoice', {
      client_id: formatId('client', s.client.id),
      lines: [{ service_id: formatId('service', s.laptop.id), qty: 1 }],
      idempotency_key: 'mcp-order-1',
      wait_seconds: 20,
    });
    expect(created).toMatchObject({ object: 'invoice', document_type: '01', total: '508500.00' });
    expect(['enviada', 'aceptada']).toContain(created.status);
    const accepted = await ok(full, 'get_invoice', { invoice_id: created.id, wait_seconds: 30 });
    expect(accepted.status).toBe('aceptada');
    expect(accepted.clave).toMatch(/^\d{50}$/);

    const again = await ok(full, 'issue_invoice', {
      client_id: formatId('client', s.client.id),
      lines: [{ service_id: formatId('service', s.laptop.id), qty: 1 }],
      idempotency_key: 'mcp-order-1',
    });
    expect(again.id).toBe(created.id);

    const page = await ok(full, 'list_invoices', {
      status: 'aceptada',
      client: formatId('client', s.client.id),
    });
    expect(page.data.map((i: { id: string }) => i.id)).toContain(created.id);
    const explained = await ok(full, 'explain_rejection', { invoice_id: created.id });
    expect(explained).toMatchObject({ status: 'aceptada', rejected: false, rejection_reason: null });
    expect(explained.hacienda_message.mensaje).toBe('1');

    const note = await ok(full, 'issue_credit_note', {
      invoice_id: created.id,
      reason: 'Devolución de la mercadería',
      wait_seconds: 20,
    });
    expect(note).toMatchObject({ document_type: '03', total: '508500.00' });
    expect(note.reference.document_id).toBe(created.id);
  });

  it('creates a draft and sends it', async () => {
    const draft = await ok(full, 'create_draft', {
      client_id: formatId('client', s.client.id),
      lines: [{ service_id: formatId('service', s.consulting.id), qty: 3 }],
    });
    expect(draft).toMatchObject({ status: 'borrador', consecutivo: null });
    const sent = await ok(full, 'send_draft', { invoice_id: draft.id, wait_seconds: 20 });
    expect(sent.id).toBe(draft.id);
    expect(['enviada', 'aceptada']).toContain(sent.status);
    expect(sent.consecutivo).toMatch(/^\d{20}$/);
  });

  it("explains a rejection with the service's reading and Hacienda's message", async () => {
    e.sim.simulator.configure({ forcedRejectionRate: 1 });
    try {
      const created = await ok(full, 'issue_invoice', {
        client_id: formatId('client', s.client.id),
        lines: [{ service_id: formatId('service', s.consulting.id), qty: 1 }],
      });
      const done = await ok(full, 'get_invoice', { invoice_id: created.id, wait_seconds: 30 });
      expect(done.status).toBe('rechazada');
      const es = await ok(full, 'explain_rejection', { invoice_id: created.id });
      expect(es.rejected).toBe(true);
      expect(es.rejection_reason.message).toMatch(/provincia|ubicación|cantón/i);
      expect(es.rejection_reason.items[0]).toMatchObject({ code: -37 });
      expect(es.hacienda_message.mensaje).toBe('3');
      expect(es.hacienda_message.detalle_mensaje).toContain('-37');
      const en = await ok(full, 'explain_rejection', { invoice_id: created.id, language: 'en' });
      expect(en.rejection_reason.message).toMatch(/province|location|address/i);
    } finally {
      e.sim.simulator.configure({ forcedRejectionRate: 0 });
    }
  });

  it('looks CABYS codes up, by code and by words', async () => {
    const code = await ok(full, 'search_cabys', { q: '4522003990000' });
    expect(code).toMatchObject({ object: 'cabys', codigo: '4522003990000', impuesto: 13 });
    const words = await ok(full, 'search_cabys', { q: 'computadora portátil', limit: 5 });
    expect(words.cabys.length).toBeGreaterThan(0);
    expect(words.cabys.length).toBeLessThanOrEqual(5);
    for (const entry of words.cabys) expect(entry.descripcion).toMatch(/computadora/i);
    const missing = await call(full, 'search_cabys', { q: '0000000000000' });
    expect(missing.isError).toBe(true);
    expect(missing.json.error).toMatchObject({ status: 404 });
  });

  it('creates and finds a client; invalid input is the service’s problem with the field', async () => {
    const created = await ok(full, 'create_client', {
      cedula: '3-101-654321',
      identification_type: '02',
      name: 'Comercializadora del Valle S.A.',
      email: 'facturas@valle.example',
    });
    expect(created).toMatchObject({ object: 'client', cedula: '3101654321' });
    const found = await ok(full, 'find_clients', { cedula: '3101654321' });
    expect(found.data.map((c: { id: string }) => c.id)).toEqual([created.id]);

    const invalid = await call(full, 'create_client', { cedula: '1', name: 'x' });
    expect(invalid.isError).toBe(true);
    expect(invalid.json.error).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(invalid.json.error.fields.map((f: { path: string }) => f.path)).toContain('/name');
    expect(invalid.texts[0]).toMatch(/^422 validation_failed: .*\/name/);
  });

  it('reads the company, the services, a taxpayer and the dollar rate', async () => {
    expect(await ok(full, 'get_company')).toMatchObject({ object: 'company', name: 'Servicios Ejemplo' });
    const services = await ok(full, 'list_services', {});
    expect(services.data.map((x: { cabys: string }) => x.cabys)).toContain('8314100000200');
    const taxpayer = await ok(full, 'lookup_taxpayer', { cedula: '2-100-042005' });
    expect(taxpayer.name).toMatch(/MINISTERIO DE HACIENDA/);
    const rate = await ok(full, 'get_exchange_rate');
    expect(Number(rate.sell)).toBeGreaterThan(0);
  });

  it('reads the catalogues and the error reference from the service', async () => {
    const read = async (uri: string) => {
      const { contents } = await full.readResource({ uri });
      expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
      return JSON.parse((contents[0] as { text: string }).text);
    };
    const rates = await read('factura://catalogues/iva-rates');
    expect(rates).toContainEqual(expect.objectContaining({ code: '08', rate: '13' }));
    const types = await read('factura://catalogues/document-types');
    expect(types.map((t: { code: string }) => t.code)).toEqual(expect.arrayContaining(['01', '03', '04']));
    const methods = await read('factura://catalogues/payment-methods');
    expect(methods).toContainEqual(expect.objectContaining({ code: '06', name: 'sinpe_movil' }));
    const conditions = await read('factura://catalogues/sale-conditions');
    expect(conditions).toContainEqual(expect.objectContaining({ code: '01', name: 'contado' }));
    const ids = await read('factura://catalogues/identification-types');
    expect(ids).toContainEqual({ code: '03', label: 'DIMEX' });
    const errors = await read('factura://errors');
    expect(errors.codes.map((c: { code: string }) => c.code)).toContain('insufficient_scope');
    expect(await read('factura://errors/insufficient_scope')).toMatchObject({ status: 403 });
  });

  it('with a read-only key, reading works and issuing is refused naming the scope it lacks', async () => {
    const page = await ok(readOnly, 'list_invoices', { limit: 5 });
    expect(page.data.length).toBeGreaterThan(0);
    expect(await ok(readOnly, 'get_company')).toMatchObject({ object: 'company' });
    const refused = await call(readOnly, 'issue_invoice', {
      client_id: formatId('client', s.client.id),
      lines: [{ service_id: formatId('service', s.laptop.id), qty: 1 }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.json.error).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(refused.texts[0]).toMatch(/^403 insufficient_scope .*write:invoices/);
    const client = await call(readOnly, 'create_client', { cedula: '109870654', name: 'Ana Mora' });
    expect(client.json.error).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(client.texts[0]).toContain('write:clients');
  });

  it('refuses input that does not fit the tool before calling the service', async () => {
    const r = await full.callTool({ name: 'get_invoice', arguments: { invoice_id: 'factura-1' } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/invoice_id/);
  });
});
