// Where the person is signed in: every open session with its times, address and browser, and a
// button to end each (the current one is marked and ends with "Salir").
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { formatDateTime } from '../../format.ts';
import { Status, useAction } from '../../ui/forms.tsx';

interface OpenSession {
  id: string;
  created_at: string;
  last_seen_at: string;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

export function Sessions() {
  const { t } = useTranslation();
  const [sessions, setSessions] = useState<OpenSession[] | null>(null);
  const action = useAction();
  const load = useCallback(async () => {
    setSessions((await request<{ data: OpenSession[] }>('GET', '/api/v1/account/sessions')).data);
  }, []);
  useEffect(() => {
    void action.run(load);
  }, [load]);
  const revoke = (id: string) =>
    void action.run(async () => {
      await request('DELETE', `/api/v1/account/sessions/${encodeURIComponent(id)}`);
      await load();
    });
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('sessions.title')}</h2>
      <Status kind="error">{action.error}</Status>
      {sessions ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('sessions.started')}</th>
                <th scope="col">{t('sessions.lastSeen')}</th>
                <th scope="col">{t('sessions.where')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('sessions.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.id}>
                  <td>{formatDateTime(s.created_at)}</td>
                  <td>{formatDateTime(s.last_seen_at)}</td>
                  <td>
                    {s.ip ?? '—'}
                    <br />
                    <small>{s.user_agent ?? ''}</small>
                  </td>
                  <td>
                    {s.current ? (
                      <strong>{t('sessions.current')}</strong>
                    ) : (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => revoke(s.id)}
                        disabled={action.pending}
                        aria-label={t('sessions.revokeOne', { when: formatDateTime(s.created_at) })}
                      >
                        {t('sessions.revoke')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
