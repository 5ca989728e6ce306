// Reading the documentation's Markdown as a reader's tools do: its fenced code blocks (with the
// language and the heading above each), its links, and the anchors its headings give (GitHub's
// slugs: lower case, punctuation dropped, spaces as hyphens, repeats numbered).
export interface CodeBlock {
  lang: string;
  code: string;
  /** The text of the nearest heading above the block. */
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
}

export interface Link {
  target: string;
  line: number;
}

interface Line {
  text: string;
  line: number;
  fenced: boolean;
}

function scan(markdown: string): Line[] {
  let fenced = false;
  return markdown.split('\n').map((text, i) => {
    const fence = /^\s*```/.test(text);
    const line = { text, line: i + 1, fenced: fenced || fence };
    if (fence) fenced = !fenced;
    return line;
  });
}

export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let heading = '';
  let open: CodeBlock | null = null;
  for (const { text, line } of markdown.split('\n').map((text, i) => ({ text, line: i + 1 }))) {
    const fence = /^\s*```\s*([\w-]*)/.exec(text);
    if (open && fence) {
      blocks.push(open);
      open = null;
    } else if (open) open.code += `${text}\n`;
    else if (fence) open = { lang: fence[1]!.toLowerCase(), code: '', heading, line };
    else if (/^#{1,6}\s/.test(text)) heading = text.replace(/^#+\s*/, '').trim();
  }
  return blocks;
}

export function links(markdown: string): Link[] {
  const found: Link[] = [];
  for (const { text, line, fenced } of scan(markdown)) {
    if (fenced) continue;
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      found.push({ target: m[1]!, line });
    for (const m of prose.matchAll(/<(https?:\/\/[^>\s]+)>/g)) found.push({ target: m[1]!, line });
  }
  return found;
}

export function slug(heading: string): string {
  const text = heading
    .replace(/`/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\s-]/gu, '').replace(/\s/g, '-');
}

/** Every anchor a Markdown file offers: its headings' slugs and explicit `<a id|name="…">`. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { text, fenced } of scan(markdown)) {
    if (fenced) continue;
    for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(m[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/**
 * The text between the lines `<!-- <name>:start -->` and `<!-- <name>:end -->` (a section other
 * files, tests or tools rely on); throws when either marker is missing or they are out of order.
 */
export function markedSection(markdown: string, name: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === `<!-- ${name}:start -->`);
  const end = lines.findIndex((l) => l.trim() === `<!-- ${name}:end -->`);
  if (start < 0 || end < start) throw new Error(`no <!-- ${name}:start --> … <!-- ${name}:end --> section`);
  return lines.slice(start + 1, end).join('\n');
}
