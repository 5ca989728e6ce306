// What an assistant reads to fill a document in: the company, its services (the catalogue lines
// are made of), the CABYS catalogue and the dollar's exchange rate.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpContext } from '../context.ts';
import { run } from '../results.ts';

export function registerLookupTools(server: McpServer, { factura }: McpContext): void {
  server.registerTool(
    'get_company',
    {
      title: 'Leer la empresa / Read the company',
      description:
        'Lee la empresa emisora de la llave: nombre, identificación, actividad, ubicación, plan y valores ' +
        'por defecto (nunca sus secretos). Requiere read:company. / Reads the key’s issuing company: name, ' +
        'identification, activity, location, plan and defaults (never its secrets). Needs read:company.',
    },
    async () => run(() => factura.get('/api/v1/company')),
  );

  server.registerTool(
    'list_services',
    {
      title: 'Listar servicios / List services',
      description:
        'Lista los servicios y productos del catálogo de la empresa (srv_…, CABYS, precio, impuesto), que ' +
        'las líneas de un comprobante usan. Requiere read:services. / Lists the company’s catalogue of ' +
        'services and goods (srv_…, CABYS, price, tax) that document lines use. Needs read:services.',
      inputSchema: {
        cabys: z
          .string()
          .regex(/^\d{13}$/)
          .optional()
          .describe('Código CABYS / CABYS code'),
        include_archived: z.boolean().optional().describe('Incluir archivados / Include archived ones'),
        limit: z.number().int().min(1).max(100).optional(),
        starting_after: z
          .string()
          .optional()
          .describe('Siguiente página tras este id / Next page after this id'),
      },
    },
    async (query) => run(() => factura.get('/api/v1/services', { params: { query } })),
  );

  server.registerTool(
    'search_cabys',
    {
      title: 'Buscar en CABYS / Search CABYS',
      description:
        'Busca en el catálogo oficial CABYS: con palabras, por descripción (sin importar tildes); con 13 ' +
        'dígitos, ese código con su tarifa de IVA; con menos dígitos, por prefijo. Requiere read:services. / ' +
        'Searches the official CABYS catalogue: words search descriptions (accents ignored); 13 digits read ' +
        'that code with its IVA rate; fewer digits search by prefix. Needs read:services.',
      inputSchema: {
        q: z.string().min(1).max(200).describe('Palabras o dígitos de código / Words or code digits'),
        limit: z.number().int().min(1).max(100).optional(),
      },
    },
    async ({ q, limit }) =>
      run(() =>
        /^\d{13}$/.test(q.trim())
          ? factura.get('/api/v1/cabys/{code}', { params: { path: { code: q.trim() } } })
          : factura.get('/api/v1/cabys', { params: { query: { q, ...(limit ? { limit } : {}) } } }),
      ),
  );

  server.registerTool(
    'get_exchange_rate',
    {
      title: 'Tipo de cambio del dólar / Dollar exchange rate',
      description:
        'El tipo de cambio de referencia del dólar (compra y venta del BCCR, publicado por Hacienda) de un ' +
        'día, por defecto hoy en Costa Rica. Requiere read:invoices. / The dollar’s reference exchange rate ' +
        '(BCCR buy and sell, as Hacienda publishes it) of a day, by default today in Costa Rica. Needs ' +
        'read:invoices.',
      inputSchema: {
        date: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/)
          .optional()
          .describe('AAAA-MM-DD / YYYY-MM-DD'),
      },
    },
    async ({ date }) =>
      run(() => factura.get('/api/v1/exchange_rates/USD', { params: { query: date ? { date } : {} } })),
  );
}
