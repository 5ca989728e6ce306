// explain_rejection: why Hacienda rejected a document, as the API tells it: the service's reading
// of the rejection (rejection_reason: a summary and each item with its field and fix, in Spanish
// and English), any processing error, and Hacienda's own answer (the MensajeHacienda XML and its
// DetalleMensaje).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { FacturaApiError } from '../../client/src/index.ts';
import type { McpContext } from '../context.ts';
import { invoiceId } from '../inputs.ts';
import { run } from '../results.ts';

export function registerRejectionTool(server: McpServer, { factura }: McpContext): void {
  server.registerTool(
    'explain_rejection',
    {
      title: 'Explicar un rechazo / Explain a rejection',
      description:
        'Explica por qué Hacienda rechazó un comprobante: la explicación del servicio (resumen, cada motivo ' +
        'con el campo y cómo corregirlo) y el mensaje de Hacienda (MensajeHacienda, DetalleMensaje). Para ' +
        'reemplazarlo, emita uno nuevo con replaces. Requiere read:invoices. / Explains why Hacienda ' +
        "rejected a document: the service's explanation (summary, each reason with its field and fix) and " +
        "Hacienda's message (MensajeHacienda, DetalleMensaje). To replace it, issue a new one with replaces. " +
        'Needs read:invoices.',
      inputSchema: {
        invoice_id: invoiceId,
        language: z
          .enum(['es', 'en'])
          .optional()
          .describe(
            'Idioma del texto del motivo (por defecto es) / Language of the reason’s text (default es)',
          ),
      },
    },
    async ({ invoice_id, language }) =>
      run(async () => {
        const path = { id: invoice_id };
        const headers = { 'accept-language': language ?? 'es' };
        const invoice = await factura.get('/api/v1/invoices/{id}', { params: { path }, headers });
        return {
          invoice_id: invoice.id,
          status: invoice.status,
          document_type: invoice.document_type,
          consecutivo: invoice.consecutivo,
          clave: invoice.clave,
          rejected: invoice.status === 'rechazada',
          rejection_reason: invoice.rejection_reason,
          processing_error: invoice.processing_error,
          warnings: invoice.warnings,
          hacienda_message: await haciendaMessage(factura, invoice_id),
        };
      }),
  );
}

/** Hacienda's answer to the document, or null while it has not answered (409 invalid_state). */
async function haciendaMessage(factura: McpContext['factura'], id: string) {
  const { data, error, response } = await factura.raw.GET('/api/v1/invoices/{id}/response', {
    params: { path: { id } },
    parseAs: 'text',
  });
  if (response.status === 409) return null;
  if (!response.ok) throw new FacturaApiError(response.status, error, response.headers);
  const xml = String(data ?? '');
  return {
    mensaje: element(xml, 'Mensaje'),
    detalle_mensaje: element(xml, 'DetalleMensaje'),
    xml,
  };
}

/** The text of the first element of that local name (namespace prefixes ignored), entities decoded. */
function element(xml: string, name: string): string | null {
  const found = new RegExp(`<(?:\\w+:)?${name}\\b[^>]*>([\\s\\S]*?)</(?:\\w+:)?${name}>`).exec(xml);
  if (!found) return null;
  return found[1]!
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
