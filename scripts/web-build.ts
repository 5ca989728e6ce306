// Building the application (web/) with vite's build API into web/dist, and telling whether that
// build is missing or older than any source of web/ (then npm start and the tests build it).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../config/index.ts';

export const WEB_ROOT = join(projectRoot, 'web');
export const WEB_DIST = join(WEB_ROOT, 'dist');

/** The newest modification time of the files under `dir` (0 when there is none). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const t = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    if (t > latest) latest = t;
  }
  return latest;
}

/** True when web/dist has no index.html or is older than a file of web/src or web's config. */
export function webIsStale(): boolean {
  let built: number;
  try {
    built = statSync(join(WEB_DIST, 'index.html')).mtimeMs;
  } catch {
    return true;
  }
  const sources = Math.max(
    newest(join(WEB_ROOT, 'src')),
    ...['index.html', 'vite.config.ts', 'tsconfig.json'].map((f) => statSync(join(WEB_ROOT, f)).mtimeMs),
  );
  return sources > built;
}

/**
 * Builds web/ into web/dist (quietly unless `verbose`): always React's production build, even from
 * a process whose NODE_ENV says test or development (vite would otherwise follow it).
 */
export async function buildWeb(verbose = false): Promise<void> {
  const { build } = await import('vite');
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: join(WEB_ROOT, 'vite.config.ts'),
      mode: 'production',
      logLevel: verbose ? 'info' : 'warn',
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

/** Builds web/ when its bundle is missing or stale; says so through `say`. True when it built. */
export async function ensureWebBuilt(say: (line: string) => void = () => {}): Promise<boolean> {
  if (!webIsStale()) return false;
  say('building the application…');
  await buildWeb();
  return true;
}
