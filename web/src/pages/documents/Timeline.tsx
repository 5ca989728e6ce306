// A document's timeline (GET /api/v1/invoices/{id}/timeline): recorded, signed, submitted,
// answered, emailed, paid, credited — oldest first, in Costa Rica time.
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { useLoad } from '../../ui/data.tsx';
import { formatDateTime } from '../../format.ts';

export function Timeline({ id, version }: { id: string; version: string }) {
  const { t } = useTranslation();
  const list = useLoad(
    () => unwrap(api.GET('/api/v1/invoices/{id}/timeline', { params: { path: { id } } })),
    [id, version],
  );
  return (
    <section className="card" aria-labelledby="timeline-h">
      <h2 id="timeline-h">{t('doc.timeline')}</h2>
      <ol className="timeline" id="timeline">
        {(list.data?.data ?? []).map((e, i) => (
          <li key={i} data-type={e.type}>
            <time dateTime={e.at}>{formatDateTime(e.at)}</time> — {t(`timeline.${e.type}`)}
            {typeof e.detail.status === 'string'
              ? ` (${t(`statuses.${e.detail.status}`, { defaultValue: e.detail.status })})`
              : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}
