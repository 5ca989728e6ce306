// `npm run bench:clients`: client name search at 100,000 clients. Seeds a scratch database
// (cloned schema, random Costa Rican-style names) and measures GET /api/v1/clients?name=…
// over real HTTP, printing p50/p95/p99 per query kind and overall. Target: p99 < 20 ms.
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { buildApp } from '../api/app.ts';
import { loadConfig } from '../config/index.ts';
import { createApiKey } from '../db/queries/api-keys.ts';
import { createCompany } from '../db/queries/companies.ts';
import { createDb } from '../db/connection.ts';
import { migrateLatest } from '../db/migrator.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);

const base = loadConfig();
const name = `factura_bench_${randomBytes(3).toString('hex')}`;
const adminUrl = new URL(base.databaseUrl);
adminUrl.pathname = '/postgres';
const admin = knexFactory({ client: 'pg', connection: adminUrl.toString(), pool: { min: 0, max: 1 } });
await admin.raw('create database ??', [name]);
const url = new URL(base.databaseUrl);
url.pathname = `/${name}`;
const db = createDb({ url: url.toString(), poolMax: 10 });
const redis = createRedis(base.redisUrl, 'api');

try {
  await migrateLatest(db);
  await waitForRedis(redis);
  const company = await createCompany(db, {
    name: 'Bench',
    plan: 'corporate',
    legalName: 'Empresa de Benchmark S.A.',
    idType: '02',
    idNumber: '3101000001',
    emails: ['bench@example.com'],
  });
  const { secret } = await createApiKey(db, {
    companyId: company.id,
    livemode: false,
    name: 'bench',
    scopes: ['read:clients'],
  });
  // A second tenant with as many rows, so the index must separate companies.
  const other = await createCompany(db, {
    name: 'Other',
    plan: 'business',
    legalName: 'Otra Empresa S.A.',
    idType: '02',
    idNumber: '3101000002',
  });

  const t0 = performance.now();
  for (const cid of [company.id, other.id]) {
    await db.raw(
      `insert into clients (company_id, livemode, id_type, id_number, name, email)
       select ?, false, '01', (100000000 + g)::text,
         (array['José','María','Ángel','Sofía','Andrés','Lucía','Óscar','Valeria','Jesús','Daniela','Luis','Ana','Émilie','Carlos','Marta','Iñaki'])[1 + (g * 7) % 16]
         || ' ' || (array['Pérez','Rodríguez','Jiménez','Mora','Vargas','Rojas','Solís','Araya','Núñez','Chaves','Quesada','Céspedes','Alfaro','Zúñiga','Ulate','Brenes','Castro','Méndez','Ramírez','Sánchez'])[1 + (g * 13) % 20]
         || ' ' || (array['Pérez','Rodríguez','Jiménez','Mora','Vargas','Rojas','Solís','Araya','Núñez','Chaves','Quesada','Céspedes','Alfaro','Zúñiga','Ulate','Brenes','Castro','Méndez','Ramírez','Sánchez'])[1 + (g * 17 + g / 20) % 20]
         || case when g % 5 = 0 then ' S.A.' else '' end || ' ' || g::text,
         'cliente' || g || '@example.com'
       from generate_series(1, ?) g`,
      [cid, CLIENTS],
    );
  }
  await db.raw('analyze clients');
  console.log(
    `seeded ${CLIENTS} clients per company for 2 companies in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const app = await buildApp({ config: { ...base, logLevel: 'silent' }, db, redis }, { logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });

  const kinds: Record<string, string[]> = {
    'full name': ['josé pérez mora', 'MARÍA ROJAS', 'Lucía Núñez Castro'],
    surname: ['zúñiga', 'CESPEDES', 'quesada', 'ulate'],
    fragment: ['ñez', 'rod', 'ara', 'nch'],
    'unique (number)': ['74321', '99999', '12345'],
    'no match': ['xyzzy', 'smith'],
  };
  const all: number[] = [];
  const rows: string[] = [];
  const pct = (arr: number[], p: number) => {
    const s = [...arr].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  };
  for (const [kind, terms] of Object.entries(kinds)) {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const term = terms[i % terms.length]!;
      const s = performance.now();
      const res = await fetch(`${address}/api/v1/clients?name=${encodeURIComponent(term)}&limit=20`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      times.push(performance.now() - s);
    }
    // the first rounds warm the caches and JIT
    const warm = times.slice(Math.min(20, times.length / 10));
    all.push(...warm);
    rows.push(
      `${kind.padEnd(18)} p50 ${pct(warm, 50).toFixed(2).padStart(6)} ms   p95 ${pct(warm, 95).toFixed(2).padStart(6)} ms   p99 ${pct(warm, 99).toFixed(2).padStart(6)} ms`,
    );
  }
  console.log(
    `\nclient name search over ${CLIENTS.toLocaleString('en')} clients (HTTP, ${ROUNDS} requests per kind)`,
  );
  for (const r of rows) console.log('  ' + r);
  const p99 = pct(all, 99);
  console.log(
    `  ${'overall'.padEnd(18)} p50 ${pct(all, 50).toFixed(2).padStart(6)} ms   p99 ${p99.toFixed(2).padStart(6)} ms   target < 20 ms: ${p99 < 20 ? 'met' : 'NOT met'}`,
  );
  await app.close();
} finally {
  redis.disconnect();
  await db.destroy();
  await admin.raw('drop database if exists ?? with (force)', [name]);
  await admin.destroy();
}
