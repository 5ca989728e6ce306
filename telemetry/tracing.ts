// OpenTelemetry for a process: a tracer provider registered globally (AsyncLocalStorage context,
// W3C trace-context propagation) whose spans go to an OTLP/HTTP collector, or to the exporter a
// test hands in. Without either nothing is registered: the @opentelemetry/api calls the rest of
// the code makes stay no-ops and cost nothing. Only process entry points import this folder.
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface TracingOptions {
  /** The process's role: factura-api, factura-worker… (OTEL_SERVICE_NAME overrides it). */
  serviceName: string;
  /** OTLP/HTTP traces URL (…/v1/traces); null: no collector. */
  tracesUrl: string | null;
  /** Spans to this exporter, each as it ends (tests). */
  exporter?: SpanExporter;
}

export interface Tracing {
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/** Registers the process's tracer provider; null when tracing is off. */
export function startTracing(o: TracingOptions): Tracing | null {
  const processors: SpanProcessor[] = [];
  if (o.tracesUrl) processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: o.tracesUrl })));
  if (o.exporter) processors.push(new SimpleSpanProcessor(o.exporter));
  if (processors.length === 0) return null;
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': o.serviceName }),
    spanProcessors: processors,
  });
  provider.register();
  return { shutdown: () => provider.shutdown() };
}
