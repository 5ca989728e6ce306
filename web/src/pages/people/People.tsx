// /app/personas: the company's members and pending invitations (for those who may manage them):
// invite by email with a role, change a role, remove a member, withdraw an invitation.
import { useCallback, useEffect, useState } from 'react';
import { Navigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { useSession } from '../../session.tsx';
import { Status, useAction } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';
import { InviteForm } from './InviteForm.tsx';
import { ROLES, type MemberList } from './roles.ts';

function Members({
  list,
  action,
  reload,
}: {
  list: MemberList;
  action: ReturnType<typeof useAction>;
  reload(): Promise<void>;
}) {
  const { t } = useTranslation();
  const { user } = useSession();
  const change = (id: string, role: string) =>
    void action.run(async () => {
      await request('PATCH', `/api/v1/members/${encodeURIComponent(id)}`, { role });
      await reload();
    });
  const remove = (id: string) =>
    void action.run(async () => {
      await request('DELETE', `/api/v1/members/${encodeURIComponent(id)}`);
      await reload();
    });
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">{t('people.members')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('fields.name')}</th>
            <th scope="col">{t('people.role')}</th>
            <th scope="col">{t('people.since')}</th>
            <th scope="col">
              <span className="visually-hidden">{t('sessions.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data.map((m) => (
            <tr key={m.user.id}>
              <td>
                {m.user.name}
                <br />
                <small>{m.user.email}</small>
              </td>
              <td>
                <label className="visually-hidden" htmlFor={`role-${m.user.id}`}>
                  {t('people.roleOf', { name: m.user.name })}
                </label>
                <select
                  id={`role-${m.user.id}`}
                  value={m.role}
                  onChange={(e) => change(m.user.id, e.target.value)}
                  disabled={action.pending}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {t(`roles.${r}`)}
                    </option>
                  ))}
                </select>
              </td>
              <td>{formatDate(m.created_at)}</td>
              <td>
                {m.user.id === user?.id ? null : (
                  <button
                    type="button"
                    className="danger"
                    onClick={() => remove(m.user.id)}
                    disabled={action.pending}
                    aria-label={t('people.removeOne', { name: m.user.name })}
                  >
                    {t('people.remove')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Invitations({
  list,
  action,
  reload,
}: {
  list: MemberList;
  action: ReturnType<typeof useAction>;
  reload(): Promise<void>;
}) {
  const { t } = useTranslation();
  const withdraw = (id: string) =>
    void action.run(async () => {
      await request('DELETE', `/api/v1/members/invitations/${encodeURIComponent(id)}`);
      await reload();
    });
  if (!list.invitations.length) return <p>{t('people.noInvitations')}</p>;
  return (
    <ul>
      {list.invitations.map((i) => (
        <li key={i.id}>
          {i.email} — {t(`roles.${i.role}`)} — {t('people.expires', { date: formatDate(i.expires_at) })}{' '}
          <button
            type="button"
            className="secondary"
            onClick={() => withdraw(i.id)}
            aria-label={t('people.withdrawOne', { email: i.email })}
          >
            {t('people.withdraw')}
          </button>
        </li>
      ))}
    </ul>
  );
}

export function People() {
  const { t } = useTranslation();
  const session = useSession();
  const [list, setList] = useState<MemberList | null>(null);
  const action = useAction();
  const allowed = session.can('manage:members');
  const load = useCallback(async () => setList(await request<MemberList>('GET', '/api/v1/members')), []);
  useEffect(() => {
    if (allowed) void action.run(load);
  }, [allowed, load, session.current?.company.id]);
  if (!allowed) return <Navigate to="/" replace />;
  return (
    <Page title={t('people.title')} wide>
      <Status kind="error">{action.error}</Status>
      {list ? (
        <>
          <h2>{t('people.members')}</h2>
          <Members list={list} action={action} reload={load} />
          <h2>{t('people.invitations')}</h2>
          <Invitations list={list} action={action} reload={load} />
        </>
      ) : null}
      <InviteForm onInvited={load} />
    </Page>
  );
}
