// /app/invitacion?token=: the link of an invitation email. Signed out, the person first signs in
// or signs up (and comes back here); signed in, one button accepts it and opens that company.
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { useSession } from '../../session.tsx';
import type { Membership } from '../../session-types.ts';
import { Status, useAction } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';

export function Invitation() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const session = useSession();
  const navigate = useNavigate();
  const action = useAction();
  const [accepted, setAccepted] = useState<Membership | null>(null);
  const back = `/invitacion?token=${encodeURIComponent(token)}`;

  const accept = () =>
    void action.run(async () => {
      const answer = await request<{ membership: Membership }>('POST', '/api/v1/invitations/accept', {
        token,
      });
      await session.refresh();
      session.selectCompany(answer.membership.company.id);
      setAccepted(answer.membership);
    });

  return (
    <Page title={t('invitation.title')}>
      <p>{t('invitation.text')}</p>
      {session.status === 'signed-in' ? (
        accepted ? (
          <>
            <Status kind="success">
              {t('invitation.accepted', {
                company: accepted.company.name,
                role: t(`roles.${accepted.role}`),
              })}
            </Status>
            <button type="button" onClick={() => void navigate('/')}>
              {t('invitation.open')}
            </button>
          </>
        ) : (
          <>
            <p>{t('invitation.as', { email: session.user?.email })}</p>
            <Status kind="error">{action.error}</Status>
            <button type="button" onClick={accept} disabled={action.pending}>
              {t('invitation.accept')}
            </button>
          </>
        )
      ) : (
        <ul className="links">
          <li>
            <Link to={`/ingresar?next=${encodeURIComponent(back)}`}>{t('invitation.signIn')}</Link>
          </li>
          <li>
            <Link to={`/registro?invitacion=${encodeURIComponent(token)}`}>{t('invitation.signUp')}</Link>
          </li>
        </ul>
      )}
    </Page>
  );
}
