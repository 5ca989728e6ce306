// Why: with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), an invoice's jobs, Hacienda calls and
// webhook deliveries are spans of the trace of the request that created it, whichever process
// runs them and however much later. The request's W3C trace context is kept with the invoice
// (`{"traceparent":"00-…"}`, the text BullMQ's telemetry stores in a job). Null: tracing was off
// or the caller sent no sampled context.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.text('trace_context');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('invoices', (t) => {
    t.dropColumn('trace_context');
  });
}
