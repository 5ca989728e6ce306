// Test and operator endpoints of the simulator (no Hacienda counterpart, never faulted or delayed):
//   GET/POST /_simulator/config     current knobs / change some of them
//   GET      /_simulator/documents  counters and every document with its state and reasons
//   DELETE   /_simulator/documents  forget documents, consecutivos, counters and rate windows
//   GET      /_simulator/stats      counters only
//   POST     /_simulator/tokens/revoke  invalidate every token issued so far
import type { FastifyInstance } from 'fastify';
import type { SimulatorControl } from './control.ts';
import { validateKnobs } from './knobs.ts';

export function registerAdminRoutes(app: FastifyInstance, control: SimulatorControl): void {
  app.get('/_simulator/config', async () => control.knobs());

  app.post('/_simulator/config', async (request, reply) => {
    const v = validateKnobs(request.body ?? {});
    if (!v.ok) return reply.code(400).send({ errors: v.errors });
    return control.configure(v.knobs);
  });

  app.get<{ Querystring: { state?: string } }>('/_simulator/documents', async (request) => {
    const state = request.query.state;
    const documents = control.documents().filter((d) => !state || d.state === state);
    return { counters: control.counters(), count: documents.length, documents };
  });

  app.delete('/_simulator/documents', async (_request, reply) => {
    control.reset();
    return reply.code(204).send();
  });

  app.get('/_simulator/stats', async () => control.counters());

  app.post('/_simulator/tokens/revoke', async (_request, reply) => {
    control.revokeTokens();
    return reply.code(204).send();
  });
}
