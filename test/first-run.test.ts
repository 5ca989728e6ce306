// The README's first run: `npm start` (scripts/start.ts) on a database that does not exist yet
// creates it, migrates, starts the API, workers and simulator, creates the demo company with a
// sandbox key printed once, and prints the URLs and a curl; that curl's request gives an
// invoice that reaches `aceptada`. Once start-up has settled it prints the key and the owner's
// sign-in again, last. Its processes' logs are readable lines with LOG_PRETTY=1 and JSON without
// (its output is not a terminal here). A second start creates nothing and prints no key.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { createRedis, waitForRedis } from '../platform/redis.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { adminUrl, testDatabaseUrl, testRedisUrl } from './helpers/db-urls.ts';
import { freePort, stopProcess } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

const dbName = `factura_t_${process.pid}_${randomBytes(4).toString('hex')}`;
let env: Record<string, string>;
let running: ChildProcess | null = null;

afterAll(async () => {
  if (running) await stopProcess(running);
  // This run's Redis keys: the queues' and the tagged ones beside them ({t-start-…:rl} …).
  const redis = createRedis(testRedisUrl(), 'api');
  try {
    await waitForRedis(redis);
    for (const pattern of [`{t-start-${process.pid}}*`, `{t-start-${process.pid}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
  const admin = knexFactory({ client: 'pg', connection: adminUrl(), pool: { min: 0, max: 1 } });
  try {
    await admin.raw('drop database if exists ?? with (force)', [dbName]);
  } finally {
    await admin.destroy();
  }
});

/** Runs `npm start`'s script until it has printed everything; returns its output so far. */
async function start(
  extra: Record<string, string> = {},
  recap = false,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: { ...process.env, ...env, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running = child;
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${out}`);
      const banner = /Service ready:[\s\S]*\n\n\S[\s\S]*\n\n/.test(out) && /npm run cli|curl/.test(out);
      return banner && (!recap || /First run \(shown this once\):\n.*\n.*\n\n/.test(out));
    },
    120_000,
    100,
    'npm start to print its URLs',
  );
  return { child, output: () => out };
}

/** A printed command line's words, "quoted words" kept whole. */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

/** `npm run cli -- <args>` with the started service's environment. */
async function cli(args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, out };
}

describe('first run', () => {
  it('npm start prints the URLs, a demo key and a curl whose invoice is accepted', async () => {
    const [port, simPort, mailPort, mailPagePort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    env = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      SIMULATOR_PORT: String(simPort),
      MAIL_CATCHER_SMTP_PORT: String(mailPort),
      MAIL_CATCHER_HTTP_PORT: String(mailPagePort),
      DATABASE_URL: testDatabaseUrl(dbName),
      REDIS_URL: testRedisUrl(),
      QUEUE_PREFIX: `{t-start-${process.pid}}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      ADMIN_PASSWORD: '',
    };
    const first = await start({ LOG_PRETTY: '1' }, true);
    const out = first.output();
    const base = `http://127.0.0.1:${port}`;
    for (const path of ['/app/', '/api/v1', '/docs', '/admin/queues', '/metrics', '/openapi.json'])
      expect(out).toContain(`${base}${path}`);
    expect(out).toMatch(/created database factura_t_/);
    expect(out).toMatch(/First run: created the demo company cmp_\d{12}/);

    // What a person copies: the key and the curl.
    const key = /export KEY=(ik_test_[0-9A-Za-z]{32,})/.exec(out)?.[1];
    expect(key, out).toBeDefined();
    const curl =
      /curl -s -X POST (\S+) -H "Authorization: Bearer \$KEY" \\\n\s+-H '([^']+)' -H '([^']+)' \\\n\s+-d '([^']+)'/.exec(
        out,
      );
    expect(curl, out).not.toBeNull();
    const [, url, h1, h2, body] = curl!;
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    for (const h of [h1!, h2!]) headers[h.split(':')[0]!.toLowerCase()] = h.slice(h.indexOf(':') + 1).trim();
    const created = await fetch(url!, { method: 'POST', headers, body });
    const invoice = (await created.json()) as { id: string; status: string };
    expect(created.status, JSON.stringify(invoice)).toBe(201);
    let status = invoice.status;
    await waitFor(
      async () => {
        const res = await fetch(`${base}/api/v1/invoices/${invoice.id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        status = ((await res.json()) as { status: string }).status;
        if (status === 'rechazada') throw new Error('the demo invoice was rejected');
        return status === 'aceptada';
      },
      30_000,
      250,
      'the demo invoice to be accepted',
    );
    expect(status).toBe('aceptada');

    // The demo company emails accepted documents: the mail catcher npm start runs has it.
    expect(out).toContain(`http://127.0.0.1:${mailPagePort}/`);
    let caught: { to: string[]; attachments: { filename: string }[] }[] = [];
    await waitFor(
      async () => {
        caught = (await (await fetch(`http://127.0.0.1:${mailPagePort}/messages`)).json()) as typeof caught;
        return caught.length > 0;
      },
      30_000,
      250,
      'the demo invoice to be emailed to the mail catcher',
    );
    expect(caught[0]!.to).toEqual(['juana@example.com']);
    expect(caught[0]!.attachments.map((a) => a.filename.slice(-4))).toEqual(['.pdf', '.xml', '.xml']);
    expect(await (await fetch(`http://127.0.0.1:${mailPagePort}/`)).text()).toContain('juana@example.com');

    // Once start-up has settled, the key and the sign-in again, after the processes' start-up logs.
    const recap = out.slice(out.lastIndexOf('First run (shown this once):'));
    expect(out.indexOf('First run (shown this once):')).toBeGreaterThan(out.indexOf('Service ready:'));
    expect(recap).toContain(`export KEY=${key}`);
    expect(out.split(`export KEY=${key}`)).toHaveLength(3);
    // Readable logs (LOG_PRETTY=1): time, level and message, no JSON.
    expect(out).toMatch(/^\[web\] \[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: /m);
    expect(out).toMatch(/^\[worker\] \[\d\d:\d\d:\d\d\.\d{3}\] INFO/m);
    expect(out).not.toMatch(/^\[(web|worker)\] \{"level"/m);

    // The printed pages answer.
    expect((await fetch(`${base}/docs`)).status).toBe(200);
    expect((await fetch(`${base}/app/`)).status).toBe(200);
    // The demo company's owner signs in to the application with the password printed once.
    const signIn = /correo \/ email: (\S+)\s+contraseña \/ password: (\S+)/.exec(out);
    expect(signIn, out).not.toBeNull();
    expect(recap).toContain(`correo / email: ${signIn![1]}   contraseña / password: ${signIn![2]}`);
    const session = await fetch(`${base}/api/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: signIn![1], password: signIn![2] }),
    });
    expect(session.status).toBe(200);
    const signedIn = (await session.json()) as { memberships: { role: string; company: { id: string } }[] };
    expect(signedIn.memberships.map((m) => m.role)).toEqual(['owner']);
    expect(out).toContain(signedIn.memberships[0]!.company.id);
    await stopProcess(first.child, 'SIGTERM');

    // A second start finds the company: no new demo, no key printed.
    const second = await start();
    expect(second.output()).not.toContain('export KEY=');
    expect(second.output()).toContain('npm run cli -- key create');
    expect(second.output()).not.toContain('First run (shown this once)');
    // Without LOG_PRETTY and without a terminal, the logs stay JSON.
    expect(second.output()).toMatch(/^\[web\] \{"level":30,/m);

    await stopProcess(second.child, 'SIGTERM');
    running = null;

    // The commands it suggests work as printed: a company (another cédula than the demo's), a key.
    const suggested = /npm run cli -- (company create .+)$/m.exec(second.output())?.[1];
    expect(suggested, second.output()).toBeDefined();
    const made = await cli(words(suggested!));
    expect(made.code, made.out).toBe(0);
    const companyId = /Created company (cmp_\d{12})/.exec(made.out)?.[1];
    expect(companyId, made.out).toBeDefined();
    const keyLine = /npm run cli -- (key create .+)$/m.exec(second.output())![1]!;
    const keyMade = await cli(words(keyLine.replace('<id>', companyId!)));
    expect(keyMade.code, keyMade.out).toBe(0);
    expect(keyMade.out).toMatch(/ik_test_[0-9A-Za-z]{32,}/);
  }, 420_000);
});
