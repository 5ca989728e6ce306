// Clients (receptors) and Hacienda's taxpayer register: create a client, find clients by
// identification or name, and look an identification up in the register.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { components } from '../../client/src/index.ts';
import type { McpContext } from '../context.ts';
import { idempotencyKey } from '../inputs.ts';
import { run } from '../results.ts';

type CreateClient = components['schemas']['CreateClientRequest'];

const address = z.object({
  provincia: z.string().describe('1 dígito / 1 digit'),
  canton: z.string().describe('2 dígitos / 2 digits'),
  distrito: z.string().describe('2 dígitos / 2 digits'),
  barrio: z.string().optional(),
  otras_senas: z.string().describe('Otras señas / Further directions'),
});

export function registerPartyTools(server: McpServer, { factura }: McpContext): void {
  server.registerTool(
    'create_client',
    {
      title: 'Crear cliente / Create a client',
      description:
        'Crea un cliente (receptor). La cédula se normaliza; su tipo se deduce del número cuando es único, ' +
        'o se toma del registro de Hacienda con lookup: true. Requiere write:clients. / Creates a client ' +
        '(receptor). The identification is normalised; its type is read from the number when only one fits, ' +
        "or taken from Hacienda's register with lookup: true. Needs write:clients.",
      inputSchema: {
        cedula: z.string().min(1).max(30).describe('Identificación / Identification number'),
        identification_type: z
          .enum(['01', '02', '03', '04', '05', '06'])
          .optional()
          .describe('01 física, 02 jurídica, 03 DIMEX, 04 NITE, 05 extranjero, 06 no contribuyente'),
        lookup: z.boolean().optional().describe('Consultar a Hacienda / Ask Hacienda’s register'),
        name: z
          .string()
          .max(100)
          .optional()
          .describe('Nombre (requerido sin lookup) / Name (required without lookup)'),
        commercial_name: z.string().optional(),
        email: z.string().email().optional(),
        phone: z.string().optional(),
        activity_code: z
          .string()
          .optional()
          .describe('Actividad económica (6 dígitos) / Activity (6 digits)'),
        addresses: z.array(address).max(10).optional(),
        foreign_address: z.string().optional().describe('Dirección en el extranjero / Foreign address'),
        metadata: z.record(z.string(), z.string()).optional(),
        idempotency_key: idempotencyKey,
      },
    },
    async ({ idempotency_key, ...body }) =>
      run(() =>
        factura.post('/api/v1/clients', {
          body: body as CreateClient,
          ...(idempotency_key ? { idempotencyKey: idempotency_key } : {}),
        }),
      ),
  );

  server.registerTool(
    'find_clients',
    {
      title: 'Buscar clientes / Find clients',
      description:
        'Busca clientes por cédula o por nombre (una página; has_more y starting_after para seguir). ' +
        'Requiere read:clients. / Finds clients by identification or by name (one page; has_more and ' +
        'starting_after to continue). Needs read:clients.',
      inputSchema: {
        cedula: z.string().optional().describe('Identificación / Identification'),
        name: z.string().optional().describe('Nombre o parte de él / Name or part of it'),
        limit: z.number().int().min(1).max(100).optional(),
        starting_after: z
          .string()
          .optional()
          .describe('Siguiente página tras este id / Next page after this id'),
      },
    },
    async (query) => run(() => factura.get('/api/v1/clients', { params: { query } })),
  );

  server.registerTool(
    'lookup_taxpayer',
    {
      title: 'Consultar contribuyente / Look up a taxpayer',
      description:
        'Consulta una identificación en el registro público de contribuyentes de Hacienda: nombre, tipo, ' +
        'situación y actividades. Requiere read:clients. / Looks an identification up in Hacienda’s public ' +
        'taxpayer register: name, type, standing and activities. Needs read:clients.',
      inputSchema: { cedula: z.string().min(1).max(30).describe('Identificación / Identification number') },
    },
    async ({ cedula }) =>
      run(() => factura.get('/api/v1/taxpayers/{cedula}', { params: { path: { cedula } } })),
  );
}
