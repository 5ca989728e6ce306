// GET /dashboard: the usage dashboard moved into the application's start page (/app/, signed in
// with the session instead of a pasted key); the old address leads there.
import type { FastifyInstance } from 'fastify';

export default async function dashboardRoute(app: FastifyInstance): Promise<void> {
  app.get('/dashboard', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').redirect('/app/', 301),
  );
}
