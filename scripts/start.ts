// `npm start`: one command for a working service on a developer machine. It validates the
// configuration, creates and migrates the database, checks Redis, then runs the API, the
// workers and (for sandbox keys) the Hacienda simulator as child processes, and prints where
// everything is once the API is ready. It installs nothing.
//
// Embedded mode (FACTURA_EMBEDDED=1, or no DATABASE_URL/REDIS_URL given and nothing answering on
// the default addresses, DEFAULT_DATABASE_URL/DEFAULT_REDIS_URL): it first starts its own
// PostgreSQL (scripts/embedded-postgres.ts, data under .local/ or, as root from a checkout the
// server's user cannot enter, scripts/embedded-data-dir.ts), runs the processes without Redis
// (queues and counters in Postgres, platform/queue-store.ts) and stops that server after them.
//
// Nothing it runs outlives it: its children end with it (scripts/parent-watch.ts, also loaded
// here for when the process above this one is killed), the embedded server too (its watchdog).
import './parent-watch.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, projectRoot } from '../config/index.ts';
import { createDb } from '../db/connection.ts';
import { ensureDatabase, migrateLatest } from '../db/migrator.ts';
import {
  describeConnectionFailure,
  describePostgresWait,
  describeRedisWait,
  untilPostgresReady,
} from '../db/reachability.ts';
import { createRedis, untilRedisReady } from '../platform/redis.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.ts';
import { embeddedDataDir } from './embedded-data-dir.ts';
import { postgresUserIds } from './embedded-binaries.ts';
import { embeddedReason } from './embedded-choice.ts';
import { createDemoSetup, isFirstRun, unusedExampleCedula, type DemoSetup } from '../cli/demo.ts';
import { ensureWebBuilt } from './web-build.ts';
import { lineFormat, untilQuiet } from './log-lines.ts';

// The embedded PostgreSQL, when this process runs one: stopped last, whatever the way out.
let embeddedPg: EmbeddedPostgres | null = null;
let embeddedData = '';
async function fail(message: string): Promise<never> {
  process.stderr.write(`\n${message}\n\n`);
  await embeddedPg?.stop().catch(() => {});
  process.exit(1);
}

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) await fail(`Configuration error: ${err.message}`);
  throw err;
}

// 0. Embedded mode? Asked for, or nothing configured and nothing answering on the defaults.
const embeddedWhy = await embeddedReason(config);
if (embeddedWhy) {
  process.env.FACTURA_EMBEDDED = '1';
  if (!process.env.DATABASE_URL) {
    const { port } = config.embeddedServer;
    let dataDir = config.embeddedServer.dataDir;
    try {
      const chosen = await embeddedDataDir(dataDir, postgresUserIds().ids);
      if (chosen.relocated)
        console.log(
          `${dataDir} is out of reach of the postgres user PostgreSQL runs as: its data is in ${chosen.dir}` +
            (existsSync(join(dataDir, 'postgres', 'PG_VERSION'))
              ? ` (the cluster in ${dataDir}/postgres is not used; let that user enter ${dataDir} to use it)`
              : ''),
        );
      dataDir = chosen.dir;
    } catch (err) {
      await fail(
        `No data directory for the embedded PostgreSQL (${dataDir}): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    embeddedData = dataDir;
    console.log(
      `embedded mode (${embeddedWhy}): starting PostgreSQL on 127.0.0.1:${port}, data in ${dataDir}`,
    );
    let started = false;
    try {
      embeddedPg = await startEmbeddedPostgres({
        dataDir,
        port,
        notice: (line) => console.log(line),
        // Its start-up chatter is dropped; once it runs, only its problems are shown.
        log: (line) => {
          if (!started || /\b(ERROR|FATAL|PANIC|WARNING)\b/.test(line)) {
            if (started || /FATAL|PANIC|ERROR/.test(line)) console.log(`[postgres] ${line}`);
          }
        },
      });
      started = true;
    } catch (err) {
      await fail(
        `Could not start the embedded PostgreSQL (port ${port}, data ${dataDir}): ${err instanceof Error ? err.message : String(err)}\n` +
          'Free the port or set EMBEDDED_PG_PORT; or give DATABASE_URL and REDIS_URL of real servers.',
      );
    }
    process.env.DATABASE_URL = embeddedPg!.url;
  }
  config = loadConfig();
}

// 1. Postgres: create the database on first run, then migrate. During an outage, wait for it
// (saying so) rather than exit; the migrations run once it answers.
try {
  let waited = false;
  const created = await untilPostgresReady(
    () => ensureDatabase(config.databaseUrl),
    (err, w) => {
      waited = true;
      console.error(describePostgresWait(config.databaseUrl, err, w));
    },
  );
  if (waited) console.log('PostgreSQL reachable: starting');
  if (created) console.log('created database', new URL(config.databaseUrl).pathname.slice(1));
} catch (err) {
  await fail(describeConnectionFailure('postgres', config.databaseUrl, err));
}
const db = createDb({ url: config.databaseUrl, poolMax: 1, applicationName: 'factura-start' });
let demo: DemoSetup | null = null;
let exampleCedula = '';
try {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied ${applied.length} migration(s)` : 'database schema is up to date');
  // First run (no company yet): a demo company with a sandbox key and a client.
  if (await isFirstRun({ config, db })) demo = await createDemoSetup({ config, db });
  else exampleCedula = await unusedExampleCedula({ db });
} finally {
  await db.destroy();
}

// 2. Redis (none in embedded mode): during an outage, wait for it (saying so) rather than exit.
if (!config.embedded) {
  const redis = createRedis(config.redisUrl, 'api');
  let waited = false;
  try {
    await untilRedisReady(redis, (err, w) => {
      waited = true;
      console.error(describeRedisWait(config.redisUrl, err, w));
    });
  } finally {
    redis.disconnect();
  }
  if (waited) console.log('Redis reachable: starting');
}

// 2b. The application (web/): built when web/dist is missing or older than its sources.
try {
  await ensureWebBuilt((line) => console.log(line));
} catch (err) {
  await fail(`Could not build the application (web/): ${err instanceof Error ? err.message : String(err)}`);
}

// 3. The processes of the Procfile, as children with prefixed output (readable logs outside
// production when the output is a terminal or LOG_PRETTY=1; JSON otherwise).
const children: ChildProcess[] = [];
const format = lineFormat(config.logPretty ?? Boolean(process.stdout.isTTY), Boolean(process.stdout.isTTY));
let lastOutput = Date.now();
function run(name: string, script: string): void {
  const watch = pathToFileURL(join(projectRoot, 'scripts/parent-watch.ts')).href;
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', watch, join(projectRoot, script)], {
    cwd: projectRoot,
    env: { ...process.env, FACTURA_START_PID: String(process.pid) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${name}] `;
  for (const stream of [child.stdout!, child.stderr!]) {
    let buf = '';
    stream.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        process.stdout.write(`${prefix}${format(buf.slice(0, i))}\n`);
        lastOutput = Date.now();
        buf = buf.slice(i + 1);
      }
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${prefix}exited (${signal ?? code}); stopping everything`);
      stop(1);
    }
  });
  children.push(child);
}

let stopping = false;
function stop(code = 0): void {
  if (stopping) return;
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  // The embedded PostgreSQL stops last, once its clients are gone (or waited for long enough).
  const exit = () =>
    void (embeddedPg?.stop() ?? Promise.resolve()).catch(() => {}).finally(() => process.exit(code));
  const force = setTimeout(exit, embeddedPg ? 10_000 : 3000);
  force.unref();
  Promise.all(
    children.map(
      (c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r))),
    ),
  ).then(() => {
    clearTimeout(force);
    exit();
  }, exit);
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

const simulatorAvailable = existsSync(join(projectRoot, 'simulator/main.ts'));
if (config.simulator.embedded && simulatorAvailable) run('sandbox', 'simulator/main.ts');
// Outside production the mail catcher takes every email (sandbox mail never leaves the machine).
if (config.mailCatcher.embedded) run('mail', 'mail-catcher/main.ts');
run('web', 'api/server.ts');
if (existsSync(join(projectRoot, 'workers/main.ts'))) run('worker', 'workers/main.ts');

// 4. Wait until the API is ready, then say where everything is.
const base = `http://127.0.0.1:${config.port}`;
// Generous: a first start on a busy or slow machine compiles every module once.
const deadline = Date.now() + 120_000;
for (;;) {
  try {
    const res = await fetch(`${base}/ready`);
    if (res.ok) break;
  } catch {
    // not listening yet
  }
  if (Date.now() > deadline) {
    console.error('the API did not become ready within 120 s');
    stop(1);
    break;
  }
  await new Promise((r) => setTimeout(r, 250));
}
if (!stopping) {
  const bullBoard = config.admin ? `(user ${config.admin.user})` : '(set ADMIN_PASSWORD to open it)';
  const lines = [
    '',
    'Service ready:',
    `  Aplicación / Application: ${base}/app/`,
    `  API            ${base}/api/v1`,
    `  Docs           ${base}/docs   (OpenAPI 3.1: ${base}/openapi.json)`,
    `  Bull Board     ${base}/admin/queues   ${bullBoard}`,
    `  Metrics        ${base}/metrics`,
    `  Health         ${base}/health  ${base}/ready`,
    config.simulator.embedded && simulatorAvailable
      ? `  Hacienda sandbox simulator  http://127.0.0.1:${config.simulator.port}`
      : `  Hacienda sandbox  ${config.hacienda.sandbox.apiUrl}`,
    config.mailCatcher.embedded
      ? `  Mail catcher   http://127.0.0.1:${config.mailCatcher.httpPort}/   (SMTP ${config.mailCatcher.smtpPort}; emails of accepted documents)`
      : `  Email          ${config.email.smtpUrl ? 'SMTP_URL' : 'no SMTP_URL: documents are not emailed'}`,
    '',
  ];
  if (config.embedded) {
    const local = embeddedPg ? { port: config.embeddedServer.port, dataDir: embeddedData } : null;
    lines.push(
      'EMBEDDED MODE: for one machine (development, a demo, a small office). No Redis: the queues',
      '(BullMQ on PostgreSQL), rate limits, key-cache invalidation and usage counters live in',
      local
        ? `PostgreSQL, here a server of its own on 127.0.0.1:${local.port} with its data in ${local.dataDir}`
        : 'the PostgreSQL of DATABASE_URL.',
      local ? '(kept between starts; stopped with this command).' : '',
      'Every API feature, Bull Board and /metrics work; not available: more than one queue shard',
      '(QUEUE_SHARDS) and more than one machine.',
      'To move to real servers: set DATABASE_URL and REDIS_URL (README, "Set-up"), copy the data',
      local
        ? `  pg_dump --exclude-schema=bullmq --exclude-schema=factura_kv "postgres://postgres:$(cat ${local.dataDir}/postgres.password)@127.0.0.1:${local.port}/factura" | psql "$DATABASE_URL"`
        : '  pg_dump --exclude-schema=bullmq --exclude-schema=factura_kv "$OLD_DATABASE_URL" | psql "$DATABASE_URL"',
      'and start without FACTURA_EMBEDDED: work in flight is re-created from PostgreSQL by the reconciler.',
      '',
    );
  }
  if (demo) {
    const body = JSON.stringify({
      client_id: demo.clientId,
      lines: [{ service_id: demo.serviceIds[0], qty: 2 }],
    });
    lines.push(
      'Primer ingreso a la aplicación / First sign-in to the application:',
      '',
      `  ${base}/app/ingresar   correo / email: ${demo.owner.email}   contraseña / password: ${demo.owner.password}`,
      '',
      `First run: created the demo company ${demo.companyId} (business plan, sandbox data), the client`,
      `${demo.clientId} and the services ${demo.serviceIds.join(', ')}. Its sandbox API key (all scopes) is`,
      'shown this once:',
      '',
      `  export KEY=${demo.keySecret}`,
      '',
      'Issue an invoice (the sandbox simulator accepts it within seconds):',
      '',
      `  curl -s -X POST ${base}/api/v1/invoices -H "Authorization: Bearer $KEY" \\`,
      `    -H 'Content-Type: application/json' -H 'Prefer: wait=10' \\`,
      `    -d '${body}'`,
      `  curl -s "${base}/api/v1/invoices?status=aceptada" -H "Authorization: Bearer $KEY"`,
      '',
    );
  } else {
    lines.push(
      `Create a company and a key:  npm run cli -- company create --name "Mi Empresa" --cedula ${exampleCedula} --id-type 02 --plan business --demo`,
      '                             npm run cli -- key create --company <id> --scopes all --mode test',
      '',
    );
  }
  console.log(lines.join('\n'));
  // The processes keep logging as they settle: once they are quiet, the first run's secrets again,
  // last, so they are not scrolled away.
  if (demo) {
    await untilQuiet(() => lastOutput, 1500, 20_000);
    if (!stopping)
      console.log(
        [
          '',
          'Primer ingreso (se muestra esta única vez) / First run (shown this once):',
          `  export KEY=${demo.keySecret}`,
          `  ${base}/app/ingresar   correo / email: ${demo.owner.email}   contraseña / password: ${demo.owner.password}`,
          '',
        ].join('\n'),
      );
  }
}
