// The targets table of a full run as the READMEs show it: Spanish (Costa Rican number formats) or
// English, from the run's results.json, so the Performance sections are pasted, not retyped.
//
//   npx tsx bench/readme-table.ts <results.json> es|en
import { readFileSync } from 'node:fs';
import { cell, renderMarkdown } from './lib/report.ts';
import type { TargetId, TargetRow } from './lib/targets.ts';

/** Each target's figure and limit in Spanish; `{}` is the figure's own parenthesis, if any. */
const ES: Record<TargetId, { figure: string; limit: string }> = {
  'end_to_end.service_cpu': {
    figure: 'de punta a punta: CPU del servicio por factura aceptada (API, workers, PG, Redis)',
    limit: 'el piso: firma + HTTP + filas directas',
  },
  'batch.recorded': {
    figure: 'lote: 10 × 1000 facturas registradas',
    limit: 'las mismas filas escritas directo en PG, tandas de 500',
  },
  'intake.p99': {
    figure: 'recepción: p99 de POST /api/v1/invoices {}',
    limit: 'p99 de inserción+commit directa en PG',
  },
  'latency.p99': {
    figure: 'latencia: p99 del 201 al webhook invoice.accepted a 10/s {}',
    limit: 'una firma RSA-2048 directa, un núcleo',
  },
  'reads.get_invoice_by_id': {
    figure: 'lecturas: p99 de obtener factura por id por HTTP, 1 000 000 de facturas',
    limit: 'la misma consulta, p99 en SQL directo',
  },
  'reads.list_invoices_by_status': {
    figure: 'lecturas: p99 de listar facturas por estado por HTTP, 1 000 000 de facturas',
    limit: 'la misma consulta, p99 en SQL directo',
  },
  'reads.client_name_search': {
    figure: 'lecturas: p99 de búsqueda de cliente por nombre por HTTP, 1 000 000 de facturas',
    limit: 'la misma consulta, p99 en SQL directo',
  },
  'memory.worker_vm_hwm': {
    figure: 'memoria: VmHWM del worker, toda la corrida',
    limit: 'RSS del worker en reposo tras arrancar',
  },
  'signing.docs_per_raw_rsa': {
    figure: 'firma: documentos construidos y firmados por segundo, un núcleo {}',
    limit: 'firmas RSA-2048 directas, un núcleo',
  },
  'end_to_end.pg_commits': {
    figure: 'de punta a punta: commits de Postgres por factura aceptada',
    limit: 'un commit por factura (definición)',
  },
  'light.cpu_at_10_per_s': {
    figure: 'carga liviana: CPU del servicio por factura a 10 facturas/s (etapa de latencia)',
    limit: 'lo mismo a plena carga (de punta a punta)',
  },
  'light.idle_cpu': {
    figure: 'carga liviana: CPU del servicio en reposo, sin solicitudes, 1 worker {}',
    limit: 'un núcleo',
  },
};

/** 1234.5 → "1 234,5" (grouping by spaces, as the READMEs write numbers). */
function es(n: number | null, unit = ''): string {
  if (n === null || !Number.isFinite(n)) return '—';
  const text = n.toLocaleString('es-CR', { maximumFractionDigits: 3 }).replace(/\u00a0/g, ' ');
  return unit && unit !== 'x' ? `${text} ${unit}` : text;
}

/** English numbers inside a figure's parenthesis ("p50 29.2 ms") in Spanish ("p50 29,2 ms"). */
const esText = (s: string): string =>
  s.replace(/\d[\d,]*(?:\.\d+)?/g, (m) => es(Number(m.replace(/,/g, ''))));

function esTarget(r: TargetRow): string {
  const sign = r.direction === '>=' ? '≥' : '≤';
  if (r.target.endsWith('× limit')) return `${sign} ${es(r.target_ratio)} × límite`;
  return `${esText(r.target)} (razón ${sign} ${es(r.target_ratio)})`;
}

export function renderSpanish(rows: TargetRow[]): string {
  return [
    '| Cifra | Valor | Límite | Razón | Meta | Cumplida |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => {
      const es_ = ES[r.id];
      const own = r.figure.match(/\(([^()]*)\)$/)?.[1];
      const figure = es_.figure.replace(' {}', own ? ` (${esText(own)})` : '');
      return `| ${[
        figure,
        es(r.value, r.unit),
        `${es_.limit} (${es(r.limit_value, r.limit_value === 1 && r.limit_unit === 'commits' ? 'commit' : r.limit_unit)})`,
        es(r.ratio),
        esTarget(r),
        r.met ? 'sí' : 'no',
      ]
        .map(cell)
        .join(' | ')} |`;
    }),
  ].join('\n');
}

function main(): void {
  const [file, lang] = process.argv.slice(2);
  if (!file || (lang !== 'es' && lang !== 'en'))
    throw new Error('usage: readme-table.ts <results.json> es|en');
  const results = JSON.parse(readFileSync(file, 'utf8')) as {
    targets: TargetRow[];
    targets_met: { met: number; of: number };
    timestamp: string;
  };
  console.log(lang === 'es' ? renderSpanish(results.targets) : renderMarkdown(results.targets));
  const { met, of } = results.targets_met;
  console.log(
    `\n${lang === 'es' ? `${met} de ${of} metas cumplidas` : `${met} of ${of} targets met`} (${results.timestamp})`,
  );
}

main();
