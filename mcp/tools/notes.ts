// Notes on an accepted document: a credit note (annuls it whole or credits some lines) and a
// debit note (adds to it). Both are issued documents (inv_…) that go through the same flow.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from '../context.ts';
import { noteBody } from '../inputs.ts';
import { run } from '../results.ts';

const DEFAULT_WAIT = 10;

type NoteInput = {
  invoice_id: string;
  reason: string;
  code?: string | undefined;
  lines?: { line: number; qty?: string | number | undefined; amount?: string | undefined }[] | undefined;
  idempotency_key?: string | undefined;
  wait_seconds?: number | undefined;
};

function noteCall(input: NoteInput) {
  const { invoice_id, idempotency_key, wait_seconds, ...body } = input;
  return {
    params: { path: { id: invoice_id } },
    body,
    wait: wait_seconds ?? DEFAULT_WAIT,
    ...(idempotency_key ? { idempotencyKey: idempotency_key } : {}),
  };
}

export function registerNoteTools(server: McpServer, { factura }: McpContext): void {
  server.registerTool(
    'issue_credit_note',
    {
      title: 'Emitir nota de crédito / Issue a credit note',
      description:
        'Emite una nota de crédito (03) sobre un comprobante aceptado: sin lines lo anula entero; con lines ' +
        'acredita esas líneas. Las notas nunca superan el total del documento. Requiere write:invoices. / ' +
        'Issues a credit note (03) on an accepted document: without lines it annuls it whole; with lines it ' +
        "credits those lines. Credits never exceed the document's total. Needs write:invoices.",
      inputSchema: noteBody,
    },
    async (input) => run(() => factura.post('/api/v1/invoices/{id}/credit_notes', noteCall(input))),
  );

  server.registerTool(
    'issue_debit_note',
    {
      title: 'Emitir nota de débito / Issue a debit note',
      description:
        'Emite una nota de débito (02) que suma a un comprobante aceptado: entero (sin lines) o algunas ' +
        'líneas. Requiere write:invoices. / Issues a debit note (02) adding to an accepted document: whole ' +
        '(no lines) or some lines. Needs write:invoices.',
      inputSchema: noteBody,
    },
    async (input) => run(() => factura.post('/api/v1/invoices/{id}/debit_notes', noteCall(input))),
  );
}
