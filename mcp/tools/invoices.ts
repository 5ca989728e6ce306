// Tools for issued documents: issuing (factura, tiquete, compra, exportación), drafts and sending
// them, reading one with its status (waiting a few seconds for Hacienda if asked), and listing.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { CreateInvoiceRequest, Invoice } from '../../client/src/index.ts';
import type { McpContext } from '../context.ts';
import { documentBody, invoiceId, waitSeconds } from '../inputs.ts';
import { run } from '../results.ts';

const DEFAULT_WAIT = 10;
const FINAL = ['aceptada', 'rechazada'];

type DocumentInput = { idempotency_key?: string | undefined } & Record<string, unknown>;

function createBody(input: DocumentInput, send: boolean): CreateInvoiceRequest {
  const { idempotency_key: _key, wait_seconds: _wait, ...body } = input;
  return { ...body, send } as CreateInvoiceRequest;
}

export function registerInvoiceTools(server: McpServer, { factura }: McpContext): void {
  server.registerTool(
    'issue_invoice',
    {
      title: 'Emitir comprobante / Issue a document',
      description:
        'Emite un comprobante electrónico por POST /api/v1/invoices: factura (01, por defecto), tiquete (04), ' +
        'factura de compra (08) o de exportación (09), y espera unos segundos la respuesta de Hacienda ' +
        '(Prefer: wait). Responde el comprobante con su estado (pendiente, enviada, aceptada, rechazada). ' +
        'Requiere el alcance write:invoices. / Issues an electronic document through POST /api/v1/invoices: ' +
        'invoice (01, default), ticket (04), purchase invoice (08) or export invoice (09), and waits a few ' +
        "seconds for Hacienda's answer (Prefer: wait). Answers the document with its status. Needs the " +
        'write:invoices scope.',
      inputSchema: { ...documentBody, wait_seconds: waitSeconds },
    },
    async (input) =>
      run(() =>
        factura.post('/api/v1/invoices', {
          body: createBody(input, true),
          wait: input.wait_seconds ?? DEFAULT_WAIT,
          ...(input.idempotency_key ? { idempotencyKey: input.idempotency_key } : {}),
        }),
      ),
  );

  server.registerTool(
    'create_draft',
    {
      title: 'Crear borrador / Create a draft',
      description:
        'Crea un borrador (estado borrador) con los mismos campos que issue_invoice; no se envía a Hacienda ' +
        'hasta send_draft. Requiere write:drafts o write:invoices. / Creates a draft (status borrador) with ' +
        "issue_invoice's fields; nothing goes to Hacienda until send_draft. Needs write:drafts or write:invoices.",
      inputSchema: documentBody,
    },
    async (input) =>
      run(() =>
        factura.post('/api/v1/invoices', {
          body: createBody(input, false),
          ...(input.idempotency_key ? { idempotencyKey: input.idempotency_key } : {}),
        }),
      ),
  );

  server.registerTool(
    'send_draft',
    {
      title: 'Enviar borrador / Send a draft',
      description:
        'Envía un borrador: toma su consecutivo, lo firma y lo manda a Hacienda, y espera unos segundos la ' +
        'respuesta. Requiere write:invoices. / Sends a draft: takes its number, signs it and sends it to ' +
        'Hacienda, waiting a few seconds for the answer. Needs write:invoices.',
      inputSchema: { invoice_id: invoiceId, wait_seconds: waitSeconds },
    },
    async ({ invoice_id, wait_seconds }) =>
      run(() =>
        factura.post('/api/v1/invoices/{id}/send', {
          params: { path: { id: invoice_id } },
          wait: wait_seconds ?? DEFAULT_WAIT,
        }),
      ),
  );

  server.registerTool(
    'get_invoice',
    {
      title: 'Consultar comprobante / Get a document',
      description:
        'Lee un comprobante con su estado, totales, clave, consecutivo y motivo de rechazo. Con wait_seconds ' +
        'lo vuelve a leer hasta que Hacienda lo acepte o rechace, o se acabe el tiempo. Requiere read:invoices. ' +
        '/ Reads a document with its status, totals, clave, number and rejection reason. With wait_seconds it ' +
        'reads it again until Hacienda accepts or rejects it, or the time is up. Needs read:invoices.',
      inputSchema: {
        invoice_id: invoiceId,
        wait_seconds: waitSeconds.describe(
          'Segundos a esperar un estado final (0-30, por defecto 0) / Seconds to wait for a final status (0-30, default 0)',
        ),
      },
    },
    async ({ invoice_id, wait_seconds }) => run(() => readUntilFinal(factura, invoice_id, wait_seconds ?? 0)),
  );

  server.registerTool(
    'list_invoices',
    {
      title: 'Listar comprobantes / List documents',
      description:
        'Lista comprobantes, los más recientes primero, por estado, tipo, cliente y fechas de creación ' +
        '(ISO 8601). Devuelve una página (has_more; siga con starting_after). Requiere read:invoices. / Lists ' +
        'documents, newest first, by status, type, client and creation dates (ISO 8601). Answers one page ' +
        '(has_more; continue with starting_after). Needs read:invoices.',
      inputSchema: {
        status: z.enum(['borrador', 'pendiente', 'enviada', 'aceptada', 'rechazada']).optional(),
        document_type: z.enum(['01', '02', '03', '04', '08', '09', '10']).optional(),
        client: z.string().optional().describe('Cliente (cli_…) / Client (cli_…)'),
        q: z
          .string()
          .optional()
          .describe('Id, clave, consecutivo o external_id exactos / Exact id, clave, number or external_id'),
        created_gte: z.string().optional().describe('Creados desde (ISO 8601) / Created from'),
        created_lt: z.string().optional().describe('Creados antes de (ISO 8601) / Created before'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(100)
          .optional()
          .describe('Tamaño de página (por defecto 20) / Page size'),
        starting_after: invoiceId
          .optional()
          .describe('Siguiente página tras este id / Next page after this id'),
      },
    },
    async (query) => run(() => factura.get('/api/v1/invoices', { params: { query } })),
  );
}

/** The invoice, read again every half second until Hacienda's final answer or `seconds` pass. */
export async function readUntilFinal(
  factura: McpContext['factura'],
  id: string,
  seconds: number,
): Promise<Invoice> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const invoice = await factura.get('/api/v1/invoices/{id}', { params: { path: { id } } });
    if (FINAL.includes(invoice.status) || Date.now() >= deadline) return invoice;
    await new Promise((r) => setTimeout(r, 500));
  }
}
