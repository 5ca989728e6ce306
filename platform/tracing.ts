// Tracing across processes, with the @opentelemetry/api only (a no-op until a process registers
// a tracer provider: telemetry/tracing.ts). An invoice's trace starts at the API request that
// created it; its W3C context is stored with the invoice (invoices.trace_context, the same text
// BullMQ's telemetry keeps in a job: `{"traceparent":"00-…"}`), so the jobs of its flow, its
// Hacienda calls and its webhook deliveries, in whatever process and however much later, are
// spans of that one trace. A chunk's jobs carry its first invoice's context.
import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { BullMQOtel } from 'bullmq-otel';

export const TRACER_NAME = 'factura-cr';

let telemetry: BullMQOtel | undefined;

/**
 * Called by a process's entry point once it has registered a tracer provider: from now on the
 * API makes request spans and BullMQ queues, flows and workers carry trace context.
 */
export function enableTracing(): void {
  telemetry ??= new BullMQOtel({ tracerName: TRACER_NAME });
}

export function tracingEnabled(): boolean {
  return telemetry !== undefined;
}

/** The `telemetry` option for BullMQ classes: undefined while tracing is off. */
export function queueTelemetry(): BullMQOtel | undefined {
  return telemetry;
}

/** What `inSpan` hands its function while tracing is off: records nothing. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** A context as stored text (`{"traceparent":…}`); null when it carries no sampled span. */
export function carrierOf(ctx: Context = context.active()): string | null {
  const sc = trace.getSpanContext(ctx);
  if (!sc || !(sc.traceFlags & TraceFlags.SAMPLED)) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent ? JSON.stringify(carrier) : null;
}

/** The context stored text names; null when there is none (or it is not readable). */
export function contextFrom(stored: string | null | undefined): Context | null {
  if (!stored) return null;
  try {
    const ctx = propagation.extract(context.active(), JSON.parse(stored) as Record<string, string>);
    return trace.getSpanContext(ctx) ? ctx : null;
  } catch {
    return null;
  }
}

/** Runs `fn` in the trace an invoice's stored context names (the active one when it has none). */
export function inInvoiceTrace<T>(stored: string | null | undefined, fn: () => Promise<T>): Promise<T> {
  const ctx = contextFrom(stored);
  return ctx ? context.with(ctx, fn) : fn();
}

/**
 * Runs `fn` in a span that is a child of the stored context (or of the active one), ending it
 * with fn's outcome. While tracing is off `fn` runs as it is, with a span that records nothing.
 */
export async function inSpan<T>(
  name: string,
  o: { parent?: string | null; kind?: SpanKind; attributes?: Attributes },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  if (!telemetry) return fn(NO_SPAN);
  const parent = contextFrom(o.parent) ?? context.active();
  return tracer().startActiveSpan(
    name,
    { kind: o.kind ?? SpanKind.INTERNAL, attributes: o.attributes },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (err) {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
