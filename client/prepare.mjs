// The package's `prepare` script. npm runs it in this folder when a project installs the package
// by its path (`npm install ../factura-cr/client` links the folder, so nothing else would build
// it), on `npm ci` in the repository (the folder is one of its workspaces) and before `npm pack`.
// It compiles src/ into dist/ when dist/ is missing or older than a source file, with the
// TypeScript of the repository's own install, where openapi-fetch also comes from: a linked
// folder's dependencies are not installed in the project that links it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const at = (path) => fileURLToPath(new URL(path, import.meta.url));

function upToDate() {
  if (!existsSync(at('dist/index.js'))) return false;
  const built = statSync(at('dist/index.js')).mtimeMs;
  const inputs = ['package.json', 'tsconfig.json', 'tsconfig.build.json'].map(at);
  for (const file of readdirSync(at('src'))) inputs.push(at(`src/${file}`));
  return inputs.every((file) => statSync(file).mtimeMs <= built);
}

function resolveFromHere(specifier) {
  try {
    return createRequire(import.meta.url).resolve(specifier);
  } catch {
    return null;
  }
}

if (!upToDate()) {
  const tsc = resolveFromHere('typescript/bin/tsc');
  if (!tsc || !resolveFromHere('openapi-fetch')) {
    process.stderr.write(
      '@factura-cr/client: faltan TypeScript u openapi-fetch. Ejecute `npm ci` en la raíz del ' +
        'repositorio factura-cr antes de instalar el paquete por su ruta, o instale el archivo de `npm pack`.\n' +
        'TypeScript or openapi-fetch is missing: run `npm ci` at the root of the factura-cr ' +
        'repository before installing the package by its path, or install the `npm pack` tarball.\n',
    );
    process.exit(1);
  }
  rmSync(at('dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
