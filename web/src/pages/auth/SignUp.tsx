// /app/registro: name, email, password and language. The answer is a confirmation email; with an
// invitation (?invitacion=token) the email counts as confirmed and the person signs in at once.
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { currentLanguage, isLanguage, type Language } from '../../i18n/index.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';

export function SignUp() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const invitation = params.get('invitacion');
  const [name, setName] = useState('');
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [password, setPassword] = useState('');
  const [locale, setLocale] = useState<Language>(currentLanguage());
  const [done, setDone] = useState(false);
  const action = useAction();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { name, email, password, locale, ...(invitation ? { invitation_token: invitation } : {}) };
      await request('POST', '/api/v1/account/sign_up', body);
      setDone(true);
    });
  };

  if (done)
    return (
      <Page title={t('signUp.doneTitle')}>
        <Status kind="success">{invitation ? t('signUp.doneInvited') : t('signUp.done', { email })}</Status>
        <p>
          <Link
            to={
              invitation
                ? `/ingresar?next=${encodeURIComponent(`/invitacion?token=${invitation}`)}`
                : '/ingresar'
            }
          >
            {t('signIn.title')}
          </Link>
        </p>
      </Page>
    );
  const err = action.failure;
  return (
    <Page title={t('signUp.title')}>
      <form onSubmit={submit} noValidate className="form">
        <Field
          label={t('fields.name')}
          name="name"
          autoComplete="name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          error={err?.forField('name')}
        />
        <Field
          label={t('fields.email')}
          type="email"
          name="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
          error={err?.forField('email')}
        />
        <Field
          label={t('fields.password')}
          type="password"
          name="password"
          autoComplete="new-password"
          minLength={10}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
          hint={t('signUp.passwordHint')}
          error={err?.forField('password')}
        />
        <div className="field">
          <label htmlFor="signup-locale">{t('fields.language')}</label>
          <select
            id="signup-locale"
            value={locale}
            onChange={(e) => isLanguage(e.target.value) && setLocale(e.target.value)}
          >
            <option value="es-CR">Español (Costa Rica)</option>
            <option value="en">English</option>
          </select>
        </div>
        <Status kind="error">{action.error}</Status>
        <button type="submit" disabled={action.pending}>
          {t('signUp.submit')}
        </button>
      </form>
      <p>
        <Link to="/ingresar">{t('signUp.toSignIn')}</Link>
      </p>
    </Page>
  );
}
