// Hacienda's reception client as the workers use it: each submit and status call timed into the
// workers' metrics (platform/metrics.ts) by its outcome, and a client span of the trace it runs in.
import { SpanKind } from '@opentelemetry/api';
import type { ReceptionClient } from '../hacienda/client/index.ts';
import {
  HaciendaAuthError,
  HaciendaRejectedError,
  HaciendaUnavailableError,
  HaciendaUnknownOutcomeError,
} from '../hacienda/client/index.ts';
import { metrics } from '../platform/metrics.ts';
import { inSpan } from '../platform/tracing.ts';

function errorOutcome(err: unknown): string {
  if (err instanceof HaciendaUnknownOutcomeError) return `unknown_${err.reason}`;
  if (err instanceof HaciendaUnavailableError) return `unavailable_${err.reason}`;
  if (err instanceof HaciendaRejectedError) return 'refused';
  if (err instanceof HaciendaAuthError) return 'auth_error';
  return 'error';
}

/** The same client, with each submit and status call timed and labelled by its outcome. */
export function instrumentReception(client: ReceptionClient, environment: string): ReceptionClient {
  // Each call is also a client span of the trace it runs in (the invoice's: see platform/tracing.ts).
  const timed = <T>(operation: string, clave: string, fn: () => Promise<T>, outcome: (r: T) => string) =>
    inSpan(
      `hacienda ${operation}`,
      { kind: SpanKind.CLIENT, attributes: { 'hacienda.clave': clave, 'hacienda.environment': environment } },
      async (span) => {
        const started = performance.now();
        try {
          const result = await fn();
          span.setAttribute('hacienda.outcome', outcome(result));
          metrics.haciendaCall(operation, environment, outcome(result), (performance.now() - started) / 1000);
          return result;
        } catch (err) {
          span.setAttribute('hacienda.outcome', errorOutcome(err));
          metrics.haciendaCall(
            operation,
            environment,
            errorOutcome(err),
            (performance.now() - started) / 1000,
          );
          throw err;
        }
      },
    );
  return {
    submit: (doc) =>
      timed(
        'submit',
        doc.clave,
        () => client.submit(doc),
        (r) => (r.duplicate ? 'duplicate' : 'received'),
      ),
    status: (clave) =>
      timed(
        'status',
        clave,
        () => client.status(clave),
        (r) => (r.found ? r.state : 'not_found'),
      ),
    rateLimit: () => client.rateLimit(),
  };
}
