// Embedded mode as root from a checkout only root may enter (a 0700 directory): PostgreSQL runs as
// the `postgres` user, who cannot reach the default data directory inside it, so the data lives
// in /var/tmp/factura-embedded-<hash of the configured path> (root's, 0755; the cluster the
// `postgres` user's, 0700), named in `npm start`'s output and banner, and found again by the next
// start. A predictable name in a directory everyone may write is not trusted when it is not
// root's own directory. As another user the configured directory is used as it is.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedDataDir, relocatedDataDir } from '../scripts/embedded-data-dir.ts';
import { postgresUserIds } from '../scripts/embedded-binaries.ts';
import { TEST_SECRETS_KEY } from './helpers/app.ts';
import { killAll, processesOf, startService, stopService, type Started } from './helpers/embedded-start.ts';
import { freePortIn } from './helpers/processes.ts';
import { waitFor } from './helpers/wait.ts';

// mkdtemp makes the directory 0700: a checkout only its owner may enter.
const checkout = mkdtempSync(join(tmpdir(), 'factura-checkout-'));
const configured = join(checkout, '.local');
const relocated = relocatedDataDir(configured);
const root = userInfo().uid === 0;
let running: Started | null = null;

afterAll(async () => {
  if (running) await stopService(running.child);
  killAll(configured, [relocated]);
  rmSync(checkout, { recursive: true, force: true });
  rmSync(relocated, { recursive: true, force: true });
});

describe('embedded mode’s data directory', () => {
  it('as root, lives where the postgres user can reach it when the checkout is closed to it, and is kept', async () => {
    expect(statSync(checkout).mode & 0o777).toBe(0o700);
    const ports: number[] = [];
    for (let i = 0; i < 6; i++) ports.push(await freePortIn(24700, 24799, ports));
    const [port, simPort, mailPort, mailPagePort, pgPort, noRedis] = ports as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const env = {
      FACTURA_EMBEDDED: '1',
      REDIS_URL: `redis://127.0.0.1:${noRedis}`,
      EMBEDDED_DATA_DIR: configured,
      EMBEDDED_PG_PORT: String(pgPort),
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      SIMULATOR_PORT: String(simPort),
      MAIL_CATCHER_SMTP_PORT: String(mailPort),
      MAIL_CATCHER_HTTP_PORT: String(mailPagePort),
      QUEUE_PREFIX: '{h-embr}',
      SECRETS_KEY: TEST_SECRETS_KEY,
    };
    const dataDir = root ? relocated : configured;
    running = await startService(env);
    const out = running.output();
    expect(out).toContain(`starting PostgreSQL on 127.0.0.1:${pgPort}, data in ${dataDir}`);
    expect(out).toContain(`127.0.0.1:${pgPort} with its data in ${dataDir}`);
    expect(out).toContain(`$(cat ${dataDir}/postgres.password)`);
    expect(out).toContain('export KEY=');
    if (root) {
      expect(relocated).toMatch(/^\/var\/tmp\/factura-embedded-[0-9a-f]{16}$/);
      expect(out).toContain(`${configured} is out of reach of the postgres user PostgreSQL runs as`);
      expect(existsSync(join(configured, 'postgres'))).toBe(false);
      const ids = postgresUserIds().ids!;
      const cluster = statSync(join(relocated, 'postgres'));
      expect([cluster.uid, cluster.mode & 0o777]).toEqual([ids.uid, 0o700]);
      const dir = statSync(relocated);
      expect([dir.uid, dir.mode & 0o777]).toEqual([0, 0o755]);
      expect(statSync(join(relocated, 'postgres.password')).mode & 0o777).toBe(0o600);
      // The server runs as that user, not as root.
      const pid = execFileSync('head', ['-1', join(relocated, 'postgres', 'postmaster.pid')])
        .toString()
        .trim();
      expect(statSync(`/proc/${pid}`).uid).toBe(ids.uid);
    } else {
      expect(out).not.toContain('out of reach');
      expect(existsSync(join(configured, 'postgres', 'PG_VERSION'))).toBe(true);
    }
    expect(await stopService(running.child)).toBe(0);
    running = null;
    await waitFor(() => processesOf(configured, [relocated]).length === 0, 5000, 100, 'no process left');

    // The next start finds the same data: no new demo company.
    running = await startService(env);
    expect(running.output()).toContain(`with its data in ${dataDir}`);
    expect(running.output()).not.toContain('export KEY=');
    expect(await stopService(running.child)).toBe(0);
    running = null;
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    await waitFor(() => processesOf(configured, [relocated]).length === 0, 5000, 100, 'no process left');
  }, 180_000);

  it('does not use a relocated directory that is not root’s own', async () => {
    const ids = postgresUserIds().ids;
    const closed = join(checkout, 'other');
    const target = relocatedDataDir(closed);
    const elsewhere = mkdtempSync(join(tmpdir(), 'factura-elsewhere-'));
    try {
      // Someone else's link where the relocated directory would be.
      symlinkSync(elsewhere, target);
      if (root && ids) {
        await expect(embeddedDataDir(closed, ids)).rejects.toThrow(`${target} is not a directory of root's`);
        expect(existsSync(join(elsewhere, 'postgres'))).toBe(false);
      } else {
        // Not root: the configured directory, whatever is in /var/tmp.
        expect(await embeddedDataDir(closed, ids)).toEqual({ dir: closed, relocated: false });
      }
    } finally {
      rmSync(target, { force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
