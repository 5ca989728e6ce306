// `import`: sends a JSON-lines file of invoice bodies (one per line, each with an
// idempotency_key or external_id) through the batch API in batches of up to 1,000, and shows a
// progress bar while they are recorded and, with --wait accepted, until Hacienda answers.
// Safe to run again after an interruption: repeated items replay instead of being created twice.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../../config/index.ts';
import { CliError } from '../context.ts';

interface Progress {
  total: number;
  recorded: number;
  failed: number;
  accepted: number;
  rejected: number;
}

function bar(label: string, done: number, total: number, extra: string): string {
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  const pct = total ? Math.floor((done / total) * 100) : 100;
  return `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(pct).padStart(3)}% ${done}/${total} ${extra}`;
}

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description('Issue the invoices of a JSON-lines file through the batch API, with a progress bar')
    .requiredOption(
      '--file <path>',
      'one invoice body per line (POST /api/v1/invoices JSON + idempotency_key)',
    )
    .requiredOption('--key <secret>', 'API key with write:invoices and read:invoices')
    .option('--url <base>', 'API base URL (default http://127.0.0.1:$PORT)')
    .option('--batch-size <n>', 'invoices per batch (1-1000)', '1000')
    .option('--wait <until>', 'recorded | accepted', 'recorded')
    .option('--json', 'print the summary as JSON')
    .action(
      async (opts: {
        file: string;
        key: string;
        url?: string;
        batchSize: string;
        wait: string;
        json?: boolean;
      }) => {
        const base = opts.url ?? `http://127.0.0.1:${loadConfig().port}`;
        const size = Number(opts.batchSize);
        if (!Number.isInteger(size) || size < 1 || size > 1000)
          throw new CliError('--batch-size must be 1..1000');
        if (!['recorded', 'accepted'].includes(opts.wait))
          throw new CliError('--wait must be recorded or accepted');
        let items: unknown[];
        try {
          items = readFileSync(opts.file, 'utf8')
            .split('\n')
            .map((l, i) => ({ l: l.trim(), i }))
            .filter(({ l }) => l.length > 0)
            .map(({ l, i }) => {
              try {
                return JSON.parse(l) as unknown;
              } catch {
                throw new CliError(`--file: line ${i + 1} is not valid JSON`);
              }
            });
        } catch (err) {
          if (err instanceof CliError) throw err;
          throw new CliError(`--file: ${(err as Error).message}`);
        }
        const headers = { authorization: `Bearer ${opts.key}`, 'content-type': 'application/json' };
        const call = async (method: string, path: string, body?: unknown) => {
          for (let attempt = 0; ; attempt++) {
            const res = await fetch(`${base}${path}`, {
              method,
              headers,
              ...(body ? { body: JSON.stringify(body) } : {}),
            });
            if ((res.status === 429 || res.status === 503) && attempt < 10) {
              await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
              continue;
            }
            // The API's JSON: batches, invoices and problems, read field by field below.
            // eslint-disable-next-line @typescript-eslint/no-explicit-any
            const json = (await res.json()) as any;
            if (res.status >= 400)
              throw new CliError(`${method} ${path}: ${res.status} ${json.code ?? ''} ${json.detail ?? ''}`);
            return json;
          }
        };
        const tty = process.stderr.isTTY;
        const p: Progress = { total: items.length, recorded: 0, failed: 0, accepted: 0, rejected: 0 };
        const batches: string[] = [];
        const offsets = new Map<string, number>();
        for (let i = 0; i < items.length; i += size) {
          const b = await call('POST', '/api/v1/invoices/batch', { invoices: items.slice(i, i + size) });
          batches.push(b.id);
          offsets.set(b.id, i);
        }
        const invoiceIds = new Set<string>();
        const failures: { batch: string; line: number; error: unknown }[] = [];
        for (;;) {
          p.recorded = 0;
          p.failed = 0;
          let pending = false;
          for (const id of batches) {
            const b = await call('GET', `/api/v1/batches/${id}`);
            p.recorded += b.counts.created + b.counts.replayed;
            p.failed += b.counts.failed;
            if (b.status !== 'completed') pending = true;
            else {
              for (const it of b.items) {
                if (it.invoice) invoiceIds.add(it.invoice.id);
                const line = offsets.get(id)! + it.index + 1;
                if (it.error && !failures.some((f) => f.line === line))
                  failures.push({ batch: id, line, error: it.error });
              }
            }
          }
          if (tty)
            process.stderr.write(bar('recorded', p.recorded + p.failed, p.total, `(${p.failed} failed)`));
          if (!pending) break;
          await new Promise((r) => setTimeout(r, 500));
        }
        if (tty) process.stderr.write('\n');
        if (opts.wait === 'accepted') {
          for (;;) {
            p.accepted = 0;
            p.rejected = 0;
            for (const id of invoiceIds) {
              const inv = await call('GET', `/api/v1/invoices/${id}`);
              if (inv.status === 'aceptada') p.accepted++;
              if (inv.status === 'rechazada') p.rejected++;
            }
            if (tty)
              process.stderr.write(
                bar('answered', p.accepted + p.rejected, invoiceIds.size, `(${p.rejected} rejected)`),
              );
            if (p.accepted + p.rejected === invoiceIds.size) break;
            await new Promise((r) => setTimeout(r, 1000));
          }
          if (tty) process.stderr.write('\n');
        }
        const summary = { ...p, batches, failures };
        if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
        else {
          process.stdout.write(
            `${p.recorded} recorded, ${p.failed} failed${opts.wait === 'accepted' ? `, ${p.accepted} accepted, ${p.rejected} rejected` : ''} in ${batches.length} batch(es)\n`,
          );
          for (const f of failures.slice(0, 20))
            process.stdout.write(`  line ${f.line} (${f.batch}): ${JSON.stringify(f.error)}\n`);
        }
        if (p.failed) process.exitCode = 1;
      },
    );
}
