// Per-process series beside the HTTP histogram in /metrics: how many queries this process has
// sent to Postgres (every knex query, transactions' statements included) and how many of them
// were API key lookups, and the state of its `Prefer: wait` waiters — how many wait now, how many were answered at once because their
// company held its share, and whether the invoice status listener is up (else waiters poll).
import type { FastifyInstance } from 'fastify';
import type { Knex } from 'knex';
import { Counter, Gauge, type Registry } from 'prom-client';

export function registerProcessMetrics(registry: Registry, app: FastifyInstance, db: Knex): void {
  const queries = new Counter({
    name: 'factura_db_queries_total',
    help: 'Queries this API process sent to Postgres',
    registers: [registry],
  });
  const onQuery = () => queries.inc();
  db.on('query', onQuery);
  app.addHook('onClose', async () => {
    db.off('query', onQuery);
  });

  new Counter({
    name: 'factura_api_key_lookups_total',
    help: 'API key lookups this process made in Postgres (known keys and remembered unknown ones need none)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(app.keyLookup.lookups);
    },
  });
  new Gauge({
    name: 'factura_invoice_waiters',
    help: 'Prefer: wait requests waiting on this API process',
    registers: [registry],
    collect() {
      this.set(app.invoiceWaits.size);
    },
  });
  new Counter({
    name: 'factura_invoice_waits_declined_total',
    help: 'Prefer: wait requests answered at once because their company held its share of waiters',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(app.invoiceWaits.declined);
    },
  });
  new Gauge({
    name: 'factura_invoice_status_listening',
    help: 'Whether this process listens for invoice status changes (0: waiters poll every 2 s)',
    registers: [registry],
    collect() {
      this.set(app.invoiceWaits.listening ? 1 : 0);
    },
  });
}
