// `npm run build`: the compiled build the Procfile runs with plain node. It empties the output
// folder (dist/, or the one given: `tsx scripts/build.ts <dir>`), compiles with
// tsconfig.build.json, then copies the files the API reads at run time beside its modules (none
// today: add a folder to RUNTIME_ASSETS when the API reads one). `npm run bench` builds into a folder of its own
// with the same function, so a bench never touches dist/. The application (web/) is built with
// vite into web/dist and copied to <out>/web/dist, where the compiled API serves it.
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../config/index.ts';
import { buildWeb, WEB_DIST } from './web-build.ts';

/** Files the compiled API reads at run time, relative to the project root, by folder. */
const RUNTIME_ASSETS: { dir: string; ext: RegExp }[] = [];

/** Compiles the service into `outDir` (emptied first). Resolves once tsc has finished. */
export async function buildService(outDir = join(projectRoot, 'dist')): Promise<void> {
  const out = resolve(projectRoot, outDir);
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const code = await new Promise<number | null>((done, fail) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out], {
      cwd: projectRoot,
      stdio: 'inherit',
    });
    child.once('error', fail);
    child.once('exit', done);
  });
  if (code !== 0) throw new Error(`tsc -p tsconfig.build.json exited with ${code}`);
  for (const { dir, ext } of RUNTIME_ASSETS) {
    mkdirSync(join(out, dir), { recursive: true });
    for (const name of readdirSync(join(projectRoot, dir)).filter((n) => ext.test(n)))
      copyFileSync(join(projectRoot, dir, name), join(out, dir, name));
  }
  await buildWeb();
  cpSync(WEB_DIST, join(out, 'web/dist'), { recursive: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  buildService(process.argv[2]).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
