// /app/restablecer?token=: the link of the password-reset email: a new password, which ends every
// session of the account.
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';

export function Reset() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await request('POST', '/api/v1/account/password_reset/confirm', {
        token: params.get('token') ?? '',
        password,
      });
      setDone(true);
    });
  };
  return (
    <Page title={t('reset.title')}>
      {done ? (
        <>
          <Status kind="success">{t('reset.done')}</Status>
          <p>
            <Link to="/ingresar">{t('signIn.title')}</Link>
          </p>
        </>
      ) : (
        <form onSubmit={submit} noValidate className="form">
          <Field
            label={t('fields.newPassword')}
            type="password"
            name="password"
            autoComplete="new-password"
            minLength={10}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
            hint={t('signUp.passwordHint')}
            error={action.failure?.forField('password')}
          />
          <Status kind="error">{action.error}</Status>
          <button type="submit" disabled={action.pending}>
            {t('reset.submit')}
          </button>
        </form>
      )}
    </Page>
  );
}
