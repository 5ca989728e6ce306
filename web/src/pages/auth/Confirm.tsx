// /app/confirmar?token=: the link of the confirmation email. Confirms on opening, then offers to
// sign in.
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { Status, useAction } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';

export function Confirm() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [confirmed, setConfirmed] = useState(false);
  const action = useAction();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void action.run(async () => {
      await request('POST', '/api/v1/account/confirm', { token });
      setConfirmed(true);
    });
  }, [action, token]);

  return (
    <Page title={t('confirm.title')}>
      {action.pending ? <p role="status">{t('confirm.checking')}</p> : null}
      <Status kind="success">{confirmed ? t('confirm.done') : null}</Status>
      <Status kind="error">{action.error}</Status>
      {confirmed || action.error ? (
        <p>
          <Link to="/ingresar">{t('signIn.title')}</Link>
        </p>
      ) : null}
    </Page>
  );
}
