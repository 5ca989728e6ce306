// Requests per bucket as bars, errors and 429s as lines (an SVG drawn from the usage buckets).
import { useTranslation } from 'react-i18next';
import type { components } from '../../../../client/src/schema.ts';
import { formatTime } from '../../format.ts';

type Bucket = components['schemas']['UsageBucket'];
interface Point {
  start: string;
  requests: number;
  errors: number;
  limited: number;
}

function series(buckets: Bucket[]): Point[] {
  const m = new Map<string, Point>();
  for (const b of buckets) {
    const p = m.get(b.start) ?? { start: b.start, requests: 0, errors: 0, limited: 0 };
    p.requests += b.requests;
    p.errors += b['4xx'] + b['5xx'];
    p.limited += b[429];
    m.set(b.start, p);
  }
  return [...m.values()].sort((a, b) => a.start.localeCompare(b.start));
}

const W = 600;
const H = 160;

export function UsageChart({ buckets }: { buckets: Bucket[] }) {
  const { t } = useTranslation();
  const points = series(buckets);
  const max = Math.max(1, ...points.map((p) => p.requests));
  const step = W / Math.max(1, points.length);
  const y = (v: number) => H - (v / max) * (H - 10);
  const line = (pick: (p: Point) => number) =>
    points.map((p, i) => `${i * step + step / 2},${y(pick(p))}`).join(' ');
  return (
    <figure className="chart">
      <svg id="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={t('usage.chart')}>
        {points.map((p, i) => (
          <rect
            key={p.start}
            className="bar"
            data-requests={p.requests}
            x={i * step + 1}
            y={y(p.requests)}
            width={Math.max(1, step - 2)}
            height={H - y(p.requests)}
          >
            <title>{`${formatTime(p.start)}: ${p.requests}`}</title>
          </rect>
        ))}
        <polyline className="series-errors" points={line((p) => p.errors)} />
        <polyline className="series-limited" points={line((p) => p.limited)} />
      </svg>
      <figcaption>{t('usage.legend')}</figcaption>
    </figure>
  );
}
