// A server span per API request when the process traces (platform/tracing.ts): a child of the
// caller's `traceparent` when it sends one, named by method and route, with the status code.
// Its context is what an invoice created by the request stores, so the invoice's whole way
// through the pipeline is one trace. With tracing off no hook is added.
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { carrierOf, tracer, tracingEnabled } from '../platform/tracing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    span: Span | null;
  }
}

/** The request's trace context as stored text; null without tracing. */
export function requestTraceContext(request: FastifyRequest): string | null {
  return request.span ? carrierOf(trace.setSpan(context.active(), request.span)) : null;
}

export function registerTracing(app: FastifyInstance): void {
  app.decorateRequest('span', null);
  if (!tracingEnabled()) return;
  app.addHook('onRequest', async (request) => {
    const parent = propagation.extract(context.active(), request.headers);
    request.span = tracer().startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'request.id': request.id },
      },
      parent,
    );
  });
  app.addHook('onResponse', async (request, reply) => {
    const span = request.span;
    if (!span) return;
    const route = request.routeOptions.url;
    if (route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}
