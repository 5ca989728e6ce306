// The documentation as a reader meets it: every link of README.md, README.en.md, client/README.md and
// every Markdown file under docs/ leads somewhere (a file or folder of the repository, a heading's
// anchor in it, or a page of the running service; links to other sites are listed, not fetched); the
// guides come in twins, docs/es/<slug>.md in Spanish and docs/en/<slug>.md in English, each linking
// the other under its title and opening with a table of contents of its `##` headings; and every
// TypeScript and JavaScript block compiles against the client package's types, strictly (JavaScript
// as `checkJs` reads it: what a wrong name, a wrong path or a possibly missing value would break),
// each block as a module of its own.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../config/index.ts';
import { anchors, codeBlocks, links, slug } from './helpers/markdown.ts';

const run = promisify(execFile);
const TSC = join(projectRoot, 'node_modules/typescript/bin/tsc');

/** Pages of the running service the documentation may link to by their path. */
const SERVICE_PATHS = new Set(['/docs', '/openapi.json', '/app/', '/metrics', '/admin/queues', '/health']);

let files: string[];
const texts = new Map<string, string>();

/** Every Markdown file under `dir` (relative to the project), at any depth. */
async function markdownUnder(dir: string): Promise<string[]> {
  const entries = await readdir(join(projectRoot, dir), { recursive: true });
  return entries.filter((f) => f.endsWith('.md')).map((f) => `${dir}/${f}`);
}

beforeAll(async () => {
  const docs = await markdownUnder('docs');
  files = [...new Set(['README.md', 'README.en.md', 'client/README.md', 'docs/README.md', ...docs])];
  for (const f of files) texts.set(f, await readFile(join(projectRoot, f), 'utf8'));
});

/** The guides of one language: docs/<lang>/*.md, by file name. */
function guides(lang: 'es' | 'en'): string[] {
  return files
    .filter((f) => f.startsWith(`docs/${lang}/`) && !f.slice(`docs/${lang}/`.length).includes('/'))
    .map((f) => f.slice(`docs/${lang}/`.length))
    .sort();
}

/** The `##` headings of a Markdown text with the anchors GitHub gives them (repeats numbered). */
function sections(markdown: string): { text: string; anchor: string }[] {
  const seen = new Map<string, number>();
  const found: { text: string; anchor: string }[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[2]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    if (heading[1] === '##') found.push({ text: heading[2]!, anchor: n === 0 ? base : `${base}-${n}` });
  }
  return found;
}

/** The first `count` lines of a text that are not blank. */
function firstLines(markdown: string, count: number): string[] {
  return markdown
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, count);
}

async function anchorsOf(file: string): Promise<Set<string>> {
  if (!texts.has(file)) texts.set(file, await readFile(join(projectRoot, file), 'utf8'));
  return anchors(texts.get(file)!);
}

/** What is wrong with one link of `file`, or null when it leads somewhere. */
async function brokenReason(file: string, target: string): Promise<string | null> {
  if (/^https?:\/\//.test(target)) return URL.canParse(target) ? null : 'not a URL';
  if (target.startsWith('mailto:')) return null;
  if (target.startsWith('/')) return SERVICE_PATHS.has(target) ? null : 'not a known page of the service';
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const linked = path === '' ? file : relative(projectRoot, join(projectRoot, dirname(file), path));
  if (linked.startsWith('..') || !existsSync(join(projectRoot, linked))) return `no file ${linked}`;
  if (anchor === undefined) return null;
  if (!linked.endsWith('.md')) return 'an anchor into a file that is not Markdown';
  return (await anchorsOf(linked)).has(decodeURIComponent(anchor))
    ? null
    : `no heading #${anchor} in ${linked}`;
}

describe('the links of the documentation', () => {
  it('lead to files, headings and pages that exist', async () => {
    const broken: string[] = [];
    const external = new Set<string>();
    for (const file of files) {
      for (const { target, line } of links(texts.get(file)!)) {
        if (/^https?:\/\//.test(target) && URL.canParse(target)) external.add(new URL(target).host);
        if (/^http:\/\/(?!127\.0\.0\.1|localhost)/.test(target))
          broken.push(`${file}:${line} ${target}: not https`);
        const reason = await brokenReason(file, target);
        if (reason) broken.push(`${file}:${line} ${target}: ${reason}`);
      }
    }
    expect(broken).toEqual([]);
    // Other sites are listed, never fetched; only the local service is linked over plain http.
    const hosts = [...external].sort();
    expect(hosts, hosts.join(', ')).toContain('openapi-ts.dev');
  });

  it('anchors are the slugs GitHub gives headings', () => {
    expect(slug('Typed client (`client/`, `@factura-cr/client`)')).toBe(
      'typed-client-client-factura-crclient',
    );
    expect(slug('Factura electrónica de exportación (09)')).toBe('factura-electrónica-de-exportación-09');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n### B: c\n')]).toEqual(['a', 'a-1', 'b-c']);
  });
});

describe('the guides in two languages', () => {
  it('every Spanish guide has an English twin of the same name, and back', () => {
    const es = guides('es');
    const en = guides('en');
    expect(es.length).toBeGreaterThanOrEqual(8);
    expect(es.filter((f) => !en.includes(f)).map((f) => `docs/en/${f} missing`)).toEqual([]);
    expect(en.filter((f) => !es.includes(f)).map((f) => `docs/es/${f} missing`)).toEqual([]);
  });

  it('each guide starts with its title, then a line linking its twin', () => {
    const wrong: string[] = [];
    for (const [lang, other, label] of [
      ['es', 'en', 'English'],
      ['en', 'es', 'Español'],
    ] as const) {
      for (const name of guides(lang)) {
        const [title, twin] = firstLines(texts.get(`docs/${lang}/${name}`)!, 2);
        if (!/^# \S/.test(title ?? '')) wrong.push(`docs/${lang}/${name}: no title first`);
        const expected = new RegExp(
          `^${label}: \\[[^\\]]+\\]\\(\\.\\./${other}/${name.replace('.', '\\.')}\\)$`,
        );
        if (!expected.test(twin ?? '')) wrong.push(`docs/${lang}/${name}: "${twin}" is not the twin line`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('each guide has a table of contents linking every ## heading, and nothing else', () => {
    const wrong: string[] = [];
    for (const file of [
      ...guides('es').map((f) => `docs/es/${f}`),
      ...guides('en').map((f) => `docs/en/${f}`),
    ]) {
      const text = texts.get(file)!;
      const heads = sections(text);
      const firstSection = text.split('\n').findIndex((l) => /^##\s/.test(l));
      const before = firstSection < 0 ? text : text.split('\n').slice(0, firstSection).join('\n');
      const toc = [...before.matchAll(/^- \[(.+)\]\(#([^)\s]+)\)\s*$/gm)].map((m) => m[2]!);
      const anchors = heads.map((h) => h.anchor);
      if (heads.length === 0) wrong.push(`${file}: no ## heading`);
      for (const a of anchors) if (!toc.includes(a)) wrong.push(`${file}: the contents lack #${a}`);
      for (const a of toc)
        if (!anchors.includes(a)) wrong.push(`${file}: the contents link #${a}, not a ## heading`);
      if (toc.join() !== anchors.filter((a) => toc.includes(a)).join())
        wrong.push(`${file}: the contents are not in the headings' order`);
    }
    expect(wrong).toEqual([]);
  });

  it('the index links every guide of both languages, each README every guide of its own', () => {
    const targets = (file: string) => new Set(links(texts.get(file)!).map((l) => l.target.split('#')[0]));
    const index = targets('docs/README.md');
    const missing = [
      ...guides('es')
        .filter((g) => !index.has(`es/${g}`))
        .map((g) => `docs/README.md lacks es/${g}`),
      ...guides('en')
        .filter((g) => !index.has(`en/${g}`))
        .map((g) => `docs/README.md lacks en/${g}`),
      ...guides('es')
        .filter((g) => !targets('README.md').has(`docs/es/${g}`))
        .map((g) => `README.md lacks docs/es/${g}`),
      ...guides('en')
        .filter((g) => !targets('README.en.md').has(`docs/en/${g}`))
        .map((g) => `README.en.md lacks docs/en/${g}`),
    ];
    expect(missing).toEqual([]);
  });

  it('the README links its English twin on its first lines, and the twin links it back', () => {
    expect(firstLines(texts.get('README.md')!, 3).join('\n')).toContain('](README.en.md)');
    expect(firstLines(texts.get('README.en.md')!, 3).join('\n')).toContain('](README.md)');
  });
});

describe('the code blocks of the documentation', () => {
  let dir: string;
  beforeAll(async () => {
    await mkdir(join(projectRoot, 'test/artifacts'), { recursive: true });
    dir = await mkdtemp(join(projectRoot, 'test/artifacts/docs-blocks-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Writes each block as a module; answers the names written, per language. */
  async function extract(): Promise<{ ts: string[]; js: string[] }> {
    const written = { ts: [] as string[], js: [] as string[] };
    for (const file of files) {
      for (const block of codeBlocks(texts.get(file)!)) {
        const lang = { ts: 'ts', typescript: 'ts', js: 'js', javascript: 'js' }[block.lang];
        if (!lang) continue;
        const name = `${file.replace(/[/.]/g, '_')}_line${block.line}.${lang === 'ts' ? 'ts' : 'mjs'}`;
        // `export {}` keeps a block without imports a module of its own.
        await writeFile(join(dir, name), `${block.code}\nexport {};\n`);
        written[lang as 'ts' | 'js'].push(name);
      }
    }
    return written;
  }

  async function typecheck(names: string[], lang: 'ts' | 'js'): Promise<string> {
    const client = join(projectRoot, 'client/src');
    const config = {
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        typeRoots: [join(projectRoot, 'node_modules/@types')],
        strict: true,
        // Plain JavaScript has no annotations: what it leaves untyped is `any`, the rest is checked.
        noImplicitAny: lang === 'ts',
        allowJs: true,
        checkJs: true,
        noEmit: true,
        skipLibCheck: true,
        allowImportingTsExtensions: true,
        paths: {
          '@factura-cr/client': [join(client, 'index.ts')],
          '@factura-cr/client/webhooks': [join(client, 'webhook-signature.ts')],
        },
      },
      files: names,
    };
    const project = join(dir, `tsconfig.${lang}.json`);
    await writeFile(project, JSON.stringify(config));
    return run(process.execPath, [TSC, '-p', project], { cwd: dir }).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
  }

  it('compile against the client package: TypeScript strictly, JavaScript as checkJs reads it', async () => {
    const { ts, js } = await extract();
    // The client's README has a block of each; the guides have more.
    expect(ts.length).toBeGreaterThanOrEqual(2);
    expect(js.length).toBeGreaterThanOrEqual(4);
    expect(await typecheck(ts, 'ts')).toBe('');
    expect(await typecheck(js, 'js')).toBe('');
  }, 240_000);
});
