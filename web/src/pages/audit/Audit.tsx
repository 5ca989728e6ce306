// /app/auditoria: who did what in the company (GET /api/v1/audit_events), newest first, paged.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Status } from '../../ui/forms.tsx';
import { useLoad } from '../../ui/data.tsx';
import { formatDateTime } from '../../format.ts';

export function Audit() {
  const { t } = useTranslation();
  const session = useSession();
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const list = useLoad(
    () =>
      unwrap(
        api.GET('/api/v1/audit_events', {
          params: { query: { limit: 25, ...(after ? { starting_after: after } : {}) } },
        }),
      ),
    [after, session.mode, session.current?.company.id],
  );
  const rows = list.data?.data ?? [];
  return (
    <Page title={t('audit.title')} wide>
      <Status kind="error">{list.error}</Status>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">{t('audit.at')}</th>
              <th scope="col">{t('audit.actor')}</th>
              <th scope="col">{t('audit.action')}</th>
              <th scope="col">{t('audit.target')}</th>
              <th scope="col">IP</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td>{formatDateTime(e.at)}</td>
                <td>
                  {t(`audit.actors.${e.actor.type}`)}: {e.actor.name ?? e.actor.id ?? '—'}
                </td>
                <td className="mono">{e.action}</td>
                <td className="mono">{e.target ? `${e.target.type} ${e.target.id}` : '—'}</td>
                <td>{e.ip ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && rows.length === 0 ? <p>{t('audit.empty')}</p> : null}
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          {t('common.previous')}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={!list.data?.has_more}
          onClick={() => setCursors((c) => [...c, rows.at(-1)!.id])}
        >
          {t('common.next')}
        </button>
      </div>
    </Page>
  );
}
