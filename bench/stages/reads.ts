// Reads at volume: the issuer's invoices are topped up to `readInvoices` and its clients to
// `readClients` with INSERT … SELECT generate_series (invoices copy the lines, summary and
// payment methods of a real invoice created through the API; statuses spread like a live
// account: 93% aceptada, 3% rechazada, 2% borrador, 1% enviada, 1% pendiente; on their own
// terminal so numbering stays unique), then ANALYZE. The worker is stopped first (nothing
// should pick the seeded in-flight rows up). Then p99 over HTTP, one request at a time after a
// warm-up, of get-by-id, list by status and client name search, each beside the same query run
// raw through pg (the database's own floor) and its EXPLAIN ANALYZE. Target: p99 ≤ 10 ms each.
import pg from 'pg';
import { formatId } from '../../domain/ids.ts';
import { percentile, request, round } from '../lib/http-load.ts';
import type { BenchContext, StageResult } from '../lib/context.ts';
import { EMISOR_ID } from '../lib/issuer.ts';
import { absoluteTarget, type TargetId, type TargetRow } from '../lib/targets.ts';

const FIRST = [
  'José',
  'María',
  'Ángel',
  'Sofía',
  'Andrés',
  'Lucía',
  'Óscar',
  'Valeria',
  'Jesús',
  'Daniela',
  'Luis',
  'Ana',
];
const LAST = [
  'Pérez',
  'Rodríguez',
  'Jiménez',
  'Mora',
  'Vargas',
  'Rojas',
  'Solís',
  'Araya',
  'Núñez',
  'Chaves',
  'Quesada',
  'Céspedes',
  'Alfaro',
  'Zúñiga',
  'Ulate',
  'Brenes',
  'Castro',
  'Méndez',
];
const SEARCHES = [
  'josé pérez',
  'MARÍA ROJAS',
  'zúñiga',
  'CESPEDES',
  'quesada',
  'ñez',
  'rod',
  '74321',
  'xyzzy',
];
const STATUSES = ['aceptada', 'rechazada', 'pendiente'];
const sqlArray = (xs: string[]) => `array[${xs.map((x) => `'${x}'`).join(',')}]`;

async function seedClients(ctx: BenchContext, want: number): Promise<number> {
  const t0 = performance.now();
  const { companyId } = ctx.issuer;
  const have = Number(
    (await ctx.db('clients').where({ companyId, livemode: false }).count('* as n').first())?.n,
  );
  const n = Math.max(0, want - have);
  if (n > 0)
    await ctx.db.raw(
      `insert into clients (company_id, livemode, id_type, id_number, name, email)
       select ?, false, '01', (200000000 + g)::text,
         (${sqlArray(FIRST)})[1 + (g * 7) % ${FIRST.length}] || ' ' || (${sqlArray(LAST)})[1 + (g * 13) % ${LAST.length}]
         || ' ' || (${sqlArray(LAST)})[1 + (g * 17 + g / 20) % ${LAST.length}]
         || case when g % 5 = 0 then ' S.A.' else '' end || ' ' || g::text,
         'cliente' || g || '@example.com'
       from generate_series(1, ?) g`,
      [companyId, n],
    );
  return (performance.now() - t0) / 1000;
}

async function seedInvoices(ctx: BenchContext, want: number): Promise<{ seconds: number; inserted: number }> {
  const t0 = performance.now();
  const { companyId } = ctx.issuer;
  let sample = await ctx
    .db('invoices')
    .where({ companyId, livemode: false })
    .whereNotNull('number')
    .orderBy('id', 'desc')
    .first('id');
  if (!sample) {
    const res = await request(ctx.api, 'POST', '/api/v1/invoices', ctx.issuer.body());
    if (res.status !== 201) throw new Error(`could not create the sample invoice: ${res.status} ${res.body}`);
    sample = { id: Number((JSON.parse(res.body) as { id: string }).id.slice(4)) };
  }
  const have = Number(
    (await ctx.db('invoices').where({ companyId, livemode: false }).count('* as n').first())?.n,
  );
  const n = Math.max(0, want - have);
  const chunk = 100_000;
  const chunks: [number, number][] = [];
  for (let from = 1; from <= n; from += chunk) chunks.push([from, Math.min(n, from + chunk - 1)]);
  // Two connections: one statement per chunk on each, so both cores insert.
  const seedPool = new pg.Pool({
    connectionString: ctx.databaseUrl,
    max: 2,
    application_name: 'factura-bench-seed',
  });
  const insert = (from: number, to: number) =>
    seedPool.query(
      `with s as (select * from invoices where id = $1),
            cl as (select id, (row_number() over (order by id) - 1) as k from clients where company_id = $2 and livemode = false),
            ncl as (select count(*) as n from cl),
            g as (select g, g % 100 as r, now() - (($5::bigint - g) * interval '20 seconds') as at
                  from generate_series($3::bigint, $4::bigint) g)
       insert into invoices (company_id, livemode, client_id, status, doc_type, branch, terminal, number,
         consecutivo, clave, security_code, situacion, issued_at, currency, exchange_rate, condition,
         condicion_venta, payment_methods, lines, summary, total, balance_due, payment_status, metadata,
         hacienda_status, signed_at, submitted_at, accounted_at, accepted_at, rejected_at, created_at, updated_at)
       select s.company_id, false, cl.id,
         case when g.r < 2 then 'borrador' when g.r < 5 then 'rechazada' when g.r < 6 then 'pendiente'
              when g.r < 7 then 'enviada' else 'aceptada' end,
         s.doc_type, s.branch, '00099',
         case when g.r < 2 then null else g.g end,
         case when g.r < 2 then null else s.branch || '00099' || s.doc_type || lpad(g.g::text, 10, '0') end,
         case when g.r < 2 then null else '506' || to_char(g.at, 'DDMMYY') || lpad($6, 12, '0') || s.branch || '00099'
              || s.doc_type || lpad(g.g::text, 10, '0') || '1' || lpad((g.g % 100000000)::text, 8, '0') end,
         case when g.r < 2 then null else lpad((g.g % 100000000)::text, 8, '0') end,
         '1', case when g.r < 2 then null else g.at end, s.currency, s.exchange_rate, s.condition,
         s.condicion_venta, s.payment_methods, s.lines, s.summary, s.total, s.balance_due, 'unpaid', s.metadata,
         case when g.r < 2 then null when g.r < 5 then 'rechazado' when g.r < 7 then 'procesando' else 'aceptado' end,
         case when g.r < 6 then null else g.at end, case when g.r < 6 then null else g.at end,
         case when g.r < 7 then null else g.at end, case when g.r < 7 then null else g.at end,
         case when g.r between 2 and 4 then g.at end, g.at, g.at
       from g cross join s cross join ncl join cl on cl.k = g.g % ncl.n`,
      [sample.id, companyId, from, to, n, EMISOR_ID],
    );
  try {
    let next = 0;
    const lane = async () => {
      while (next < chunks.length) {
        const [from, to] = chunks[next++]!;
        await insert(from, to);
      }
    };
    await Promise.all([lane(), lane()]);
  } finally {
    await seedPool.end();
  }
  return { seconds: (performance.now() - t0) / 1000, inserted: n };
}

interface Kind {
  id: TargetId;
  name: string;
  http: (i: number) => string;
  raw: (i: number) => [string, unknown[]];
}

export async function readsStage(ctx: BenchContext): Promise<StageResult> {
  const p = ctx.params;
  if (ctx.service.children.workers.length) await ctx.service.stopWorkers();
  ctx.log(
    `reads: seeding up to ${p.readClients.toLocaleString('en')} clients and ${p.readInvoices.toLocaleString('en')} invoices`,
  );
  const clientsS = await seedClients(ctx, p.readClients);
  const inv = await seedInvoices(ctx, p.readInvoices);
  const t1 = performance.now();
  await ctx.db.raw('analyze invoices');
  await ctx.db.raw('analyze clients');
  const analyzeS = (performance.now() - t1) / 1000;
  const { companyId } = ctx.issuer;
  const counts = await ctx.db('invoices').where({ companyId, livemode: false }).count('* as n').first();
  const clients = await ctx.db('clients').where({ companyId, livemode: false }).count('* as n').first();
  const range = await ctx
    .db('invoices')
    .where({ companyId, livemode: false })
    .min('id as lo')
    .max('id as hi')
    .first();
  ctx.log(
    `reads: ${Number(counts?.n).toLocaleString('en')} invoices, ${Number(clients?.n).toLocaleString('en')} clients (clients ${round(clientsS, 1)} s, invoices ${round(inv.seconds, 1)} s, analyze ${round(analyzeS, 1)} s)`,
  );
  const lo = Number(range?.lo);
  const hi = Number(range?.hi);
  // A fixed pseudo-random walk over the id range (the same rows every run), keeping ids that exist.
  const total = p.readWarmup + p.readRequests;
  const candidates = Array.from({ length: total * 2 }, (_, i) => lo + ((i * 2_654_435_761) % (hi - lo + 1)));
  const found = new Set(
    (
      await ctx.db('invoices').where({ companyId, livemode: false }).whereIn('id', candidates).pluck('id')
    ).map(Number),
  );
  const ids = candidates.filter((id) => found.has(id));
  const idAt = (i: number) => ids[i % ids.length]!;
  const tenant = [companyId, false];
  const kinds: Kind[] = [
    {
      id: 'reads.get_invoice_by_id',
      name: 'get invoice by id',
      http: (i) => `/api/v1/invoices/${formatId('invoice', idAt(i))}`,
      raw: (i) => [
        'select * from invoices where company_id = $1 and livemode = $2 and id = $3 limit 1',
        [...tenant, idAt(i)],
      ],
    },
    {
      id: 'reads.list_invoices_by_status',
      name: 'list invoices by status',
      http: (i) => `/api/v1/invoices?status=${STATUSES[i % STATUSES.length]}&limit=20`,
      raw: (i) => [
        'select * from invoices where company_id = $1 and livemode = $2 and status = $3 order by company_id desc, livemode desc, id desc limit 21',
        [...tenant, STATUSES[i % STATUSES.length]],
      ],
    },
    {
      id: 'reads.client_name_search',
      name: 'client name search',
      http: (i) => `/api/v1/clients?name=${encodeURIComponent(SEARCHES[i % SEARCHES.length]!)}&limit=20`,
      raw: (i) => [
        `select * from clients where company_id = $1 and livemode = $2 and search_name like $3 order by company_id desc, livemode desc, id desc limit 21`,
        [
          ...tenant,
          `%${SEARCHES[i % SEARCHES.length]!.normalize('NFD')
            .replace(/[\u0300-\u036f]/g, '')
            .toLowerCase()}%`,
        ],
      ],
    },
  ];

  const client = new pg.Client({ connectionString: ctx.databaseUrl, application_name: 'factura-bench-raw' });
  await client.connect();
  const figures: Record<string, unknown> = {
    invoices: Number(counts?.n),
    clients: Number(clients?.n),
    seeded_invoices: inv.inserted,
    seed_clients_seconds: round(clientsS, 1),
    seed_invoices_seconds: round(inv.seconds, 1),
    analyze_seconds: round(analyzeS, 1),
    requests_per_kind: p.readRequests,
    warmup_per_kind: p.readWarmup,
  };
  const targets: TargetRow[] = [];
  try {
    for (const k of kinds) {
      const http: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < total; i++) {
        const t = performance.now();
        const res = await request(ctx.api, 'GET', k.http(i));
        const dt = performance.now() - t;
        if (res.status !== 200) throw new Error(`${k.name}: GET ${k.http(i)} answered ${res.status}`);
        if (i >= p.readWarmup) http.push(dt);
      }
      for (let i = 0; i < total; i++) {
        const [sql, args] = k.raw(i);
        const t = performance.now();
        await client.query(sql, args);
        if (i >= p.readWarmup) raw.push(performance.now() - t);
      }
      const [sql, args] = k.raw(1);
      const plan = await client.query(`explain (analyze, buffers) ${sql}`, args);
      const p99 = round(percentile(http, 99), 2);
      const rawP99 = round(percentile(raw, 99), 2);
      figures[k.name.replace(/ /g, '_')] = {
        p50_ms: round(percentile(http, 50), 2),
        p99_ms: p99,
        raw_sql_p50_ms: round(percentile(raw, 50), 2),
        raw_sql_p99_ms: rawP99,
        explain_analyze: plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']),
      };
      ctx.log(`reads: ${k.name}: p99 ${p99} ms over HTTP (raw SQL p99 ${rawP99} ms)`);
      targets.push(
        absoluteTarget(
          {
            id: k.id,
            figure: `p99 ${k.name} over HTTP, ${Number(counts?.n).toLocaleString('en')} invoices`,
            value: p99,
            unit: 'ms',
            limit: 'same query, raw SQL p99',
            limitValue: rawP99,
          },
          '<=',
          10,
        ),
      );
    }
  } finally {
    await client.end();
  }
  return { figures, targets, info: [] };
}
