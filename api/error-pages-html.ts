// The error reference as HTML: one page with every code (grouped by HTTP status, each code an
// element whose id is the code, so `/docs/errors#<code>` lands on it) and one page per code.
// Spanish first, English below each text. Every text is escaped; no inline script or style: the
// pages' policy allows only the stylesheet served beside them.
import { STATUS_CODES } from 'node:http';
import { ERROR_CATALOGUE, type ErrorCode } from '../domain/errors.ts';
import {
  codesByStatus,
  ERROR_REFERENCE,
  errorPagePath,
  exampleProblem,
  type Bilingual,
} from '../domain/error-reference/index.ts';

export const STYLESHEET_PATH = '/docs/errors.css';

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const statusLine = (status: number) => `${status} ${STATUS_CODES[status] ?? ''}`.trim();

const both = (es: string, en: string) =>
  `${escapeHtml(es)} <span class="en" lang="en">${escapeHtml(en)}</span>`;

const texts = (t: Bilingual) => `<p>${escapeHtml(t.es)}</p><p class="en" lang="en">${escapeHtml(t.en)}</p>`;

function fieldList(fields: readonly string[]): string {
  if (!fields.length) return `<p>${both('Ninguno.', 'None.')}</p>`;
  return `<ul class="fields">${fields.map((f) => `<li><code>${escapeHtml(f)}</code></li>`).join('')}</ul>`;
}

function exampleBlock(code: ErrorCode): string {
  const problem = exampleProblem(code);
  const head = `HTTP/1.1 ${statusLine(problem.status)}\nContent-Type: application/problem+json\n\n`;
  const body = JSON.stringify(
    { ...problem, instance: '/api/v1/…', request_id: 'req_4mJ1o2Zb8tWcQv0N' },
    null,
    2,
  );
  return `<pre><code>${escapeHtml(head + body)}</code></pre>`;
}

/** One code's entry: an article whose id is the code. */
export function entryHtml(code: ErrorCode, heading: 'h2' | 'h3'): string {
  const entry = ERROR_REFERENCE[code];
  const { status, title } = ERROR_CATALOGUE[code];
  return `<article class="error" id="${escapeHtml(code)}">
<${heading}><a href="${escapeHtml(errorPagePath(code))}"><code>${escapeHtml(code)}</code></a> <span class="status">${status}</span></${heading}>
<p class="title">${both(entry.titleEs, title)}</p>
<dl>
<dt>${both('Qué significa', 'What it means')}</dt><dd>${texts(entry.means)}</dd>
<dt>${both('Campos, miembros y encabezados de la respuesta', 'Fields, members and headers of the answer')}</dt><dd>${fieldList(entry.fields)}</dd>
<dt>${both('Cómo corregirlo', 'How to fix it')}</dt><dd>${texts(entry.fix)}</dd>
<dt>${both('Ejemplo de respuesta', 'Example answer')}</dt><dd>${exampleBlock(code)}</dd>
</dl>
</article>`;
}

function page(title: string, main: string): string {
  return `<!DOCTYPE html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<header><nav><a href="/docs/errors">Errores <span lang="en">Errors</span></a> · <a href="/docs">API</a> · <a href="/openapi.json">OpenAPI</a> · <a href="/docs/errors.json">JSON</a></nav></header>
<main>
${main}
</main>
</body>
</html>
`;
}

const INTRO = `<p>Cada error de la API es una respuesta <code>application/problem+json</code> (RFC 9457) con un
<code>code</code> estable: programe según <code>code</code>, no según el texto. <code>type</code> enlaza a la entrada
del código en esta página; <code>request_id</code> (también en el encabezado <code>Request-Id</code>) identifica la
solicitud. En los errores de validación, <code>errors[]</code> trae cada campo con problema: <code>path</code> (JSON
Pointer en el cuerpo, o <code>header:</code>/<code>querystring:</code> y el nombre), <code>code</code> y
<code>message</code>.</p>
<p class="en" lang="en">Every API error is an <code>application/problem+json</code> answer (RFC 9457) with a stable
<code>code</code>: branch on <code>code</code>, not on the text. <code>type</code> links to the code's entry on this
page; <code>request_id</code> (also the <code>Request-Id</code> header) identifies the request. Validation errors
carry <code>errors[]</code>, each field at fault with its <code>path</code> (a JSON Pointer into the body, or
<code>header:</code>/<code>querystring:</code> and the name), <code>code</code> and <code>message</code>.</p>`;

function contents(groups: [number, ErrorCode[]][]): string {
  const items = groups.map(
    ([status, codes]) =>
      `<li><a href="#status-${status}">${escapeHtml(statusLine(status))}</a><ul>${codes
        .map(
          (c) =>
            `<li><a href="#${escapeHtml(c)}"><code>${escapeHtml(c)}</code></a> ${escapeHtml(ERROR_REFERENCE[c].titleEs)}</li>`,
        )
        .join('')}</ul></li>`,
  );
  return `<nav class="contents" aria-labelledby="contents"><h2 id="contents">${both('Contenido por estado HTTP', 'Contents by HTTP status')}</h2><ul>${items.join('')}</ul></nav>`;
}

/** The page of every code. */
export function referencePage(): string {
  const groups = codesByStatus();
  const sections = groups.map(
    ([status, codes]) =>
      `<section aria-labelledby="status-${status}"><h2 id="status-${status}">${escapeHtml(statusLine(status))}</h2>
${codes.map((c) => entryHtml(c, 'h3')).join('\n')}
</section>`,
  );
  return page(
    'Errores de la API de factura-cr (API errors)',
    `<h1>${both('Errores de la API', 'API errors')}</h1>\n${INTRO}\n${contents(groups)}\n${sections.join('\n')}`,
  );
}

/** The page of one code. */
export function codePage(code: ErrorCode): string {
  return page(
    `${code}: ${ERROR_REFERENCE[code].titleEs} (${ERROR_CATALOGUE[code].title})`,
    `${entryHtml(code, 'h2')}\n<p><a href="/docs/errors#${escapeHtml(code)}">${both('Todos los errores', 'All errors')}</a></p>`,
  );
}

export const STYLESHEET = `:root { color-scheme: light dark; --muted: #5b6470; --line: #d7dce2; --code-bg: #f3f5f7; }
@media (prefers-color-scheme: dark) { :root { --muted: #a3adb8; --line: #39414a; --code-bg: #1d2227; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, main { max-width: 52rem; margin: 0 auto; padding: 0.75rem 1rem; }
header { border-bottom: 1px solid var(--line); }
h1 { font-size: 1.6rem; margin: 0.5rem 0; }
h2 { font-size: 1.3rem; margin-top: 2rem; }
h3 { font-size: 1.1rem; margin-bottom: 0.25rem; }
.en { color: var(--muted); }
p.en { margin-top: -0.5rem; }
.title { font-weight: 600; margin-top: 0; }
.status { font-weight: normal; color: var(--muted); }
article.error { border-top: 1px solid var(--line); padding: 0.5rem 0 1rem; scroll-margin-top: 1rem; }
article.error:target { outline: 2px solid #2f6fde; outline-offset: 0.5rem; }
dt { font-weight: 600; margin-top: 0.75rem; }
dd { margin: 0.25rem 0 0 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; overflow-wrap: anywhere; }
pre { background: var(--code-bg); padding: 0.75rem; overflow-x: auto; border-radius: 4px; }
pre code { overflow-wrap: normal; }
ul.fields { padding-left: 1.25rem; margin: 0; }
.contents ul ul { columns: 2 16rem; }
a { color: #2f6fde; }
`;
