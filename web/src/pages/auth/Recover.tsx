// /app/recuperar: asks for a password-reset email. The answer is the same whether or not the
// address has an account.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';

export function Recover() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      await request('POST', '/api/v1/account/password_reset', { email });
      setSent(true);
    });
  };
  return (
    <Page title={t('recover.title')}>
      <form onSubmit={submit} noValidate className="form">
        <p>{t('recover.text')}</p>
        <Field
          label={t('fields.email')}
          type="email"
          name="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
          error={action.failure?.forField('email')}
        />
        <Status kind="success">{sent ? t('recover.sent') : null}</Status>
        <Status kind="error">{action.error}</Status>
        <button type="submit" disabled={action.pending}>
          {t('recover.submit')}
        </button>
      </form>
      <p>
        <Link to="/ingresar">{t('signIn.title')}</Link>
      </p>
    </Page>
  );
}
