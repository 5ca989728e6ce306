// Bull Board at /admin/queues: operators watch every queue of the invoice flow. Behind the admin
// credentials (./admin-auth.ts: the page is off when no password is set), and
// read-only unless ADMIN_QUEUES_WRITABLE=true. The board's own errors ({"error":{"key":…}})
// leave as problem+json like every other error (the board's `error` field kept for its UI).
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/index.ts';
import { ApiError, problemBody, sendProblem } from '../errors.ts';
import type { ErrorCode } from '../../domain/errors.ts';
import type { AdminCheck } from './admin-auth.ts';

/**
 * What the board's page may load: its own scripts only (no inline script, no eval), its styles
 * (inline ones included: the page and React set them) and Google's fonts it links to, requests to
 * this origin, and no framing. Checked in Chromium: the board renders without a violation.
 */
const BOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; " +
  "font-src 'self' https://fonts.gstatic.com data:; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const BOARD_ERROR_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  404: 'resource_not_found',
  405: 'method_not_allowed',
};

export const ADMIN_QUEUES_PATH = '/admin/queues';

export async function registerBullBoard(
  app: FastifyInstance,
  config: Config,
  queues: Queue[],
  requireAdmin: AdminCheck,
): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  createBullBoard({
    // A queue of a shard (platform/shards.ts) is shown under its shard's name (`q1.invoice-sign`).
    queues: queues.map(
      (q) =>
        new BullMQAdapter(q, {
          readOnlyMode: !config.admin?.writable,
          prefix:
            q.opts.prefix === config.queuePrefix
              ? ''
              : `${/:([^:}]+)\}$/.exec(q.opts.prefix ?? '')?.[1] ?? q.opts.prefix}.`,
        }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'factura-cr queues' } },
  });
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  await app.register(
    async (scope) => {
      // Answered here, not thrown: the board's own error handler would turn it into a 500.
      scope.addHook('onRequest', async (request, reply) => {
        try {
          await requireAdmin(request, reply);
          // The board splits its messages on NUL: one in the query string would be its 500.
          if (/%00/.test(request.url))
            throw new ApiError('invalid_request', 'The query string may not contain NUL');
        } catch (err) {
          if (err instanceof ApiError) return sendProblem(request, reply, err);
          throw err;
        }
      });
      scope.addHook('onSend', async (request, reply, payload) => {
        const status = reply.statusCode;
        const type = String(reply.getHeader('content-type') ?? '');
        if (type.startsWith('text/html')) reply.header('content-security-policy', BOARD_CSP);
        if (status < 400 || type.startsWith('application/problem+json')) return payload;
        let board: Record<string, unknown> = {};
        try {
          const parsed: unknown = typeof payload === 'string' ? JSON.parse(payload) : null;
          if (parsed && typeof parsed === 'object') board = parsed as Record<string, unknown>;
        } catch {
          // not JSON: nothing of the board's to keep
        }
        if (status >= 500) request.log.error({ board }, 'Bull Board error');
        const code = status >= 500 ? 'internal_error' : (BOARD_ERROR_CODES[status] ?? 'invalid_request');
        const detail =
          status >= 500
            ? 'The queue board failed; it has been logged'
            : 'The queue board refused the request';
        reply.type('application/problem+json; charset=utf-8');
        return JSON.stringify({ ...board, ...problemBody(request, new ApiError(code, detail)), status });
      });
      await scope.register(serverAdapter.registerPlugin());
    },
    { prefix: ADMIN_QUEUES_PATH },
  );
}
