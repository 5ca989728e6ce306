// What the API's request logs say about a request: Fastify's usual fields, with capability
// tokens in the query string (the Hacienda callback's `t`, an HMAC that lets its holder prod an
// invoice's status check) replaced by [redacted]. Keys, secrets and bodies are never logged.
import type { FastifyServerOptions } from 'fastify';

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

export function redactUrl(url: string): string {
  return url.replace(/([?&]t=)[^&#]*/gi, '$1[redacted]');
}

function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** The logger options with the request serializer above (a caller's own serializers win). */
export function safeLogger(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger || typeof logger !== 'object') return logger;
  return { ...logger, serializers: { req: serializeRequest as never, ...logger.serializers } };
}
