// What one API process grants a single HTTP connection, so that no client — authenticated or
// not — can hold the process's sockets, file descriptors or memory:
// - the request line and headers within HTTP_HEADERS_TIMEOUT_MS of the request's first byte,
//   the whole request (body included) within HTTP_REQUEST_TIMEOUT_MS: a body dripped a byte at a
//   time is cut off (Node checks both every CHECK_EVERY_MS and answers 408 request_timeout);
// - nothing moving on a connection for HTTP_IDLE_TIMEOUT_MS closes it while the server waits on
//   the client: a new connection that never sends a byte (the two timeouts above start at the
//   first byte), headers that stop, an answer the client stops reading. Not while the
//   server itself is working on an answer (a slow handler on a loaded machine, a Prefer: wait):
//   that is the server's time, not the client's. Between two requests an idle keep-alive
//   connection lasts HTTP_KEEP_ALIVE_TIMEOUT_MS;
// - a request answered before its body arrived (no key, a bad key, a refused scope, a rate limit)
//   is answered with `Connection: close` and the socket is closed: Node would otherwise read
//   and discard the rest of the body for as long as the client cares to send it;
// - at most HTTP_MAX_CONNECTIONS open connections: past it Node closes new connections as they
//   are accepted, and those already open (a health check's keep-alive connection, requests in
//   flight) carry on. The cap is lowered to fit the process's file-descriptor limit;
// - at most HTTP_MAX_CONNECTIONS_PER_ADDRESS of them from one client address (address-limits.ts),
//   so that one client's slow sockets never fill the process-wide cap.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyInstance, FastifyRequest } from 'fastify';
import type { HttpLimits } from '../config/index.ts';
import { connectionCap, fileDescriptorLimit, limitConnectionsPerAddress } from './address-limits.ts';

/** How often Node looks for requests past their header or whole-request deadline (at most). */
const CHECK_EVERY_MS = 1000;
/** One warning per process at most this often while connections are being dropped. */
const WARN_EVERY_MS = 10_000;

/** The Fastify options that carry the limits (the app factory merges them into its own). */
export function httpServerOptions(limits: HttpLimits): FastifyHttpOptions<Server> {
  const checkEvery = Math.max(
    50,
    Math.min(CHECK_EVERY_MS, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
  );
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkEvery,
    },
    ...(limits.trustProxy === null ? {} : { trustProxy: limits.trustProxy }),
  };
}

/** The connection cap and the close-after-early-refusal rule; the app factory calls it once. */
export function registerConnectionLimits(app: FastifyInstance, limits: HttpLimits): void {
  const fdLimit = fileDescriptorLimit();
  const maxConnections = connectionCap(limits.maxConnections, fdLimit);
  if (maxConnections < limits.maxConnections)
    app.log.warn(
      { configured: limits.maxConnections, fdLimit, maxConnections },
      'HTTP_MAX_CONNECTIONS lowered to fit the file-descriptor limit (ulimit -n) less a reserve',
    );
  app.server.maxConnections = maxConnections;
  const dropped = throttledWarning(app, (n) => [
    { maxConnections, droppedSoFar: n },
    'connection limit reached; closing new connections',
  ]);
  app.server.on('drop', () => dropped());
  const refused = throttledWarning(app, (n, address?: string) => [
    { maxConnectionsPerAddress: limits.maxConnectionsPerAddress, address, refusedSoFar: n },
    'connection limit of one address reached; refusing its new connections',
  ]);
  limitConnectionsPerAddress(app.server, limits.maxConnectionsPerAddress, limits.trustProxy, refused);

  // From the request's headers to its answer the server is working: no idle deadline (the body
  // still has the whole-request one). It is set again for writing the answer, which a client
  // that stops reading would otherwise hold forever; Node then applies the keep-alive timeout.
  app.addHook('onRequest', async (request) => {
    idleTimeout(request, 0);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    idleTimeout(request, limits.idleTimeoutMs);
    // `complete` is false while the request's body is still arriving: the answer was decided
    // without it. Closing is the only way not to read the rest (HTTP/1.1 has no "stop sending").
    if (!request.raw.complete) reply.header('connection', 'close');
    return payload;
  });
}

/** Counts events and warns about them at most every WARN_EVERY_MS. */
function throttledWarning(
  app: FastifyInstance,
  describe: (count: number, detail?: string) => [Record<string, unknown>, string],
): (detail?: string) => void {
  let count = 0;
  let lastWarning = 0;
  return (detail) => {
    count += 1;
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    app.log.warn(...describe(count, detail));
  };
}

/** Sets the socket's inactivity timeout (injected requests, as in tests, have no real socket). */
function idleTimeout(request: FastifyRequest, ms: number): void {
  const socket = request.raw.socket as Partial<Socket> | undefined;
  if (typeof socket?.setTimeout === 'function') socket.setTimeout(ms);
}
