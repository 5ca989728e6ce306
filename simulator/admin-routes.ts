// Test and operator endpoints of the simulator (no Hacienda counterpart, never faulted or delayed):
//   GET/POST /_simulator/config     current knobs / change some of them
//   GET      /_simulator/documents  counters and every document with its state and reasons
//   DELETE   /_simulator/documents  forget documents, consecutivos, counters and rate windows
//   GET      /_simulator/stats      counters only
//   POST     /_simulator/tokens/revoke  invalidate every token issued so far
// They can change what the simulator answers (knobs) and wipe its memory, so with an admin token
// (SIMULATOR_ADMIN_TOKEN, required when NODE_ENV=production) every one of them wants
// `Authorization: Bearer <token>`. Answers never carry callback tokens (see control.ts) or passwords.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorControl } from './control.ts';
import { validateKnobs } from './knobs.ts';

const digest = (v: string) => createHash('sha256').update(v).digest();

/** onRequest guard: compares digests, so the comparison takes the same time for any guess. */
function bearerGuard(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (m?.[1] && timingSafeEqual(digest(m[1]), expected)) return;
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="simulator-admin"')
      .send({ error: 'unauthorized', message: 'the /_simulator endpoints need the admin token' });
  };
}

export function registerAdminRoutes(
  app: FastifyInstance,
  control: SimulatorControl,
  adminToken: string | null,
): void {
  void app.register(async (scope) => {
    if (adminToken) scope.addHook('onRequest', bearerGuard(adminToken));

    scope.get('/_simulator/config', async () => control.knobs());

    scope.post('/_simulator/config', async (request, reply) => {
      const v = validateKnobs(request.body ?? {});
      if (!v.ok) return reply.code(400).send({ errors: v.errors });
      return control.configure(v.knobs);
    });

    scope.get<{ Querystring: { state?: string } }>('/_simulator/documents', async (request) => {
      const state = request.query.state;
      const documents = control.documents().filter((d) => !state || d.state === state);
      return { counters: control.counters(), count: documents.length, documents };
    });

    scope.delete('/_simulator/documents', async (_request, reply) => {
      control.reset();
      return reply.code(204).send();
    });

    scope.get('/_simulator/stats', async () => control.counters());

    scope.post('/_simulator/tokens/revoke', async (_request, reply) => {
      control.revokeTokens();
      return reply.code(204).send();
    });
  });
}
