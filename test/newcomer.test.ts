// A newcomer's first minutes, verbatim: the committed repository is cloned into a temporary folder,
// and the shell blocks of README.md's quickstart (between `<!-- quickstart:start -->` and
// `<!-- quickstart:end -->`) run with bash exactly as written, in order: the one command that does
// not return (`npm start`) in the background, the rest once the service says it is ready. The
// invoice they issue must reach `aceptada`, and the client they create must be answered 201.
//
// The clone must meet neither this machine's servers nor its port 3000: everything runs in a
// network namespace of its own (`unshare --net`, loopback only), where nothing answers on 5432 or
// 6379, so `npm start` goes embedded and port 3000 is free. `npm ci` in the clone reads npm's
// cache only (npm_config_offline in the environment, not in the typed commands): CI has run `npm
// ci` in the project first. Every process is stopped and the folder removed at the end.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { codeBlocks, markedSection } from './helpers/markdown.ts';
import { waitFor } from './helpers/wait.ts';

/** npm ci (offline) plus the first start (initdb, migrations, the application's build). */
const START_SECONDS = 600;
/** The commands after `npm start`, Hacienda's answer included. */
const REST_SECONDS = 180;

const work = mkdtempSync(join(tmpdir(), 'factura-newcomer-'));
// The embedded PostgreSQL runs as the `postgres` user under root: it must reach the clone's `.local/`.
chmodSync(work, 0o755);
const clone = join(work, 'factura-cr');

/** Processes whose working directory, program or command line lies in the clone. */
function processesOfClone(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // a process without a readable working directory
      }
      if (cmdline.includes(clone) || cwd.startsWith(clone)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

afterAll(async () => {
  for (const pid of processesOfClone()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  // The clone's node_modules: a few hundred megabytes.
  await rm(work, { recursive: true, force: true });
}, 300_000);

// Runs inside the namespace: loopback up, the long-running command in a process group of its own,
// the rest once the banner is out, then a stop as Ctrl-C would (SIGINT to the whole group).
const DRIVER = `
ip link set lo up
cd "$CLONE"
set -m
bash "$WORK/start.sh" > "$WORK/start.log" 2>&1 < /dev/null &
started=$!
for _ in $(seq 1 "$START_SECONDS"); do
  grep -q '^Service ready:' "$WORK/start.log" && break
  kill -0 "$started" 2>/dev/null || break
  sleep 1
done
if grep -q '^Service ready:' "$WORK/start.log"; then
  timeout "$REST_SECONDS" bash -e "$WORK/rest.sh" > "$WORK/rest.out" 2> "$WORK/rest.err" < /dev/null
  echo $? > "$WORK/rest.rc"
fi
kill -INT -- -"$started" 2>/dev/null
for _ in $(seq 1 40); do kill -0 "$started" 2>/dev/null || break; sleep 0.5; done
kill -0 "$started" 2>/dev/null && { echo "npm start did not stop within 20 s" >&2; kill -KILL -- -"$started"; }
wait "$started"
exit 0
`;

/** The quickstart's shell blocks, split into the command that does not return and the others. */
function quickstart(readme: string): { start: string; rest: string } {
  const blocks = codeBlocks(markedSection(readme, 'quickstart')).filter((b) => b.lang === 'sh');
  const lines = blocks.flatMap((b) => b.code.trimEnd().split('\n'));
  const starts = lines.filter((l) => /^[^#]*\bnpm start\b/.test(l));
  expect(starts, 'one command runs `npm start`').toHaveLength(1);
  return {
    start: `${starts[0]}\n`,
    rest: `${lines.filter((l) => l !== starts[0]).join('\n')}\n`,
  };
}

/** A process-environment a newcomer's shell could have: no project settings, npm's cache only. */
function newcomerEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? userInfo().homedir,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    CLONE: clone,
    WORK: work,
    START_SECONDS: String(START_SECONDS),
    REST_SECONDS: String(REST_SECONDS),
  };
  if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
  return env;
}

/** The JSON documents and `HTTP nnn` lines the quickstart's curls printed, in order. */
function printed(out: string): ({ json: Record<string, unknown> } | { http: number })[] {
  const found: ({ json: Record<string, unknown> } | { http: number })[] = [];
  for (const line of out.split('\n')) {
    const http = /^HTTP (\d{3})$/.exec(line.trim());
    if (http) found.push({ http: Number(http[1]) });
    else if (line.startsWith('{')) found.push({ json: JSON.parse(line) as Record<string, unknown> });
  }
  return found;
}

describe('the README quickstart on a fresh clone', () => {
  it('issues an invoice that reaches aceptada and creates a client, nothing else typed', async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', '--no-checkout', projectRoot, clone]);
    execFileSync('git', ['checkout', '--quiet', '--detach', head], { cwd: clone });

    const { start, rest } = quickstart(readFileSync(join(clone, 'README.md'), 'utf8'));
    writeFileSync(join(work, 'start.sh'), start);
    writeFileSync(join(work, 'rest.sh'), rest);
    writeFileSync(join(work, 'driver.sh'), DRIVER);

    // Root makes the namespace itself; another user maps itself into a user namespace first.
    const unshare = userInfo().uid === 0 ? ['--net'] : ['--map-current-user', '--net'];
    const driver = spawn('unshare', [...unshare, 'bash', join(work, 'driver.sh')], {
      env: newcomerEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    driver.stdout.on('data', (b: Buffer) => (said += b.toString()));
    driver.stderr.on('data', (b: Buffer) => (said += b.toString()));
    const code = await new Promise<number | null>((resolve) => driver.on('close', resolve));
    const read = (f: string) => {
      try {
        return readFileSync(join(work, f), 'utf8');
      } catch {
        return '';
      }
    };
    const startLog = read('start.log');
    const report = `driver:\n${said}\nnpm start:\n${startLog.slice(-6000)}\nquickstart stderr:\n${read('rest.err')}`;
    expect(code, report).toBe(0);
    expect(said, report).not.toContain('did not stop');
    expect(startLog, report).toMatch(/embedded mode \(no DATABASE_URL or REDIS_URL/);
    expect(read('rest.rc').trim(), report).toBe('0');

    const out = printed(read('rest.out'));
    const docs = out.flatMap((o) => ('json' in o ? [o.json] : []));
    const invoice = docs[0] as { id: string; status: string };
    expect(invoice.id, report).toMatch(/^inv_/);
    const listed = (docs[1] as { data: { id: string; status: string }[] }).data;
    expect(listed.find((i) => i.id === invoice.id)?.status, JSON.stringify(listed)).toBe('aceptada');
    const client = docs[2] as { id: string; name: string };
    expect(client.id, JSON.stringify(client)).toMatch(/^cli_/);
    expect(client.id).not.toBe('cli_000000000001');
    expect(out.at(-1), JSON.stringify(out)).toEqual({ http: 201 });

    // Nothing outlives `npm start`: the API, the workers and the embedded PostgreSQL stop with it.
    await waitFor(() => processesOfClone().length === 0, 30_000, 250, 'the clone’s processes to stop');
  }, 900_000);
});
