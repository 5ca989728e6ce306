// GET /dashboard/invoices and /dashboard/invoices/:id: the invoice browser moved into the
// application (/app/documentos, /app/documentos/:id); the old addresses lead there.
import type { FastifyInstance } from 'fastify';

export default async function invoiceBrowserRoutes(app: FastifyInstance): Promise<void> {
  const config = { public: true };
  app.get('/dashboard/invoices', { config, schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').redirect('/app/documentos', 301),
  );
  app.get<{ Params: { id: string } }>(
    '/dashboard/invoices/:id',
    { config, schema: { hide: true } },
    async (request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .redirect(`/app/documentos/${encodeURIComponent(request.params.id)}`, 301),
  );
}
