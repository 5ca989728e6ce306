// Hacienda's public, unauthenticated services (api.hacienda.go.cr), at the real paths:
//   GET /fe/ae?identificacion=<n>   → the taxpayer (public-data.ts's register); 404 when unknown;
//                                     400 without the parameter or with a leading 0
//   GET /indicadores/tc/dolar       → { venta: { fecha, valor }, compra: { fecha, valor } } of today
//   GET /indicadores/tc/dolar/historico?d=YYYY-MM-DD&h=YYYY-MM-DD
//                                   → [{ fecha: "YYYY-MM-DD 00:00:00", compra, venta }] up to today
// Knobs: publicDataDown (503 {"code":503,"status":"Service unavailable"}, the body Hacienda's
// gateway sends), taxpayersNotFound (every /fe/ae a 404), publicDataLatencyMs (slow answers).
// No token, no rate-limit headers (the real service limits by address without announcing it).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SimulatorContext } from './context.ts';
import { daysBetween, SEED_TAXPAYERS, simulatedUsdRate } from './public-data.ts';
import type { SimTaxpayer } from './public-data.ts';

const CR_OFFSET_MS = 6 * 3600_000;
const crToday = (now: number) => new Date(now - CR_OFFSET_MS).toISOString().slice(0, 10);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const status = (reply: FastifyReply, code: number, text: string) =>
  reply.code(code).send({ code, status: text });

export function registerPublicDataRoutes(
  app: FastifyInstance,
  ctx: SimulatorContext,
  extra: readonly SimTaxpayer[] = [],
): void {
  const register = new Map<string, SimTaxpayer>();
  for (const t of [...SEED_TAXPAYERS, ...extra]) register.set(t.identificacion, t);

  void app.register(async (scope) => {
    // Counted, slowed and failed before anything else, like a gateway in front of the service.
    scope.addHook('onRequest', async (request, reply) => {
      ctx.counters[request.url.startsWith('/fe/') ? 'taxpayerLookups' : 'exchangeRateLookups'] += 1;
      const delay = ctx.knobs.publicDataLatencyMs;
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (ctx.knobs.publicDataDown) return status(reply, 503, 'Service unavailable');
    });

    scope.get<{ Querystring: { identificacion?: string } }>('/fe/ae', async (request, reply) => {
      const n = request.query.identificacion ?? '';
      if (!/^[1-9]\d{8,11}$/.test(n)) return status(reply, 400, 'Bad Request');
      const t = ctx.knobs.taxpayersNotFound ? undefined : register.get(n);
      if (!t) return status(reply, 404, 'Not Found');
      const { identificacion: _, ...body } = t;
      return body;
    });

    scope.get('/indicadores/tc/dolar', async () => {
      const today = crToday(ctx.now());
      const r = simulatedUsdRate(today);
      const fecha = `${today}T00:00:00-06:00`;
      return { venta: { fecha, valor: r.venta }, compra: { fecha, valor: r.compra } };
    });

    scope.get<{ Querystring: { d?: string; h?: string } }>(
      '/indicadores/tc/dolar/historico',
      async (request, reply) => {
        const { d, h } = request.query;
        if (!d || !h || !DATE.test(d) || !DATE.test(h)) return status(reply, 400, 'Bad Request');
        const today = crToday(ctx.now());
        return daysBetween(d, h < today ? h : today, 3660).map((day) => ({
          fecha: `${day} 00:00:00`,
          ...simulatedUsdRate(day),
        }));
      },
    );
  });
}
