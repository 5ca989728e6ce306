// /app/ingresar: email and password, then (when the answer is totp_required) the six-digit code
// of the person's authenticator. On success, to the page asked for (?next=) or the start page.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, ApiError, unwrap } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';

/** Only paths of the application itself: never a redirect elsewhere. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function SignIn() {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const action = useAction();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { email, password, ...(needsCode ? { totp_code: code } : {}) };
      try {
        session.accept(await unwrap(api.POST('/api/v1/session', { body })));
      } catch (err) {
        if (err instanceof ApiError && err.code === 'totp_required') {
          setNeedsCode(true);
          return;
        }
        throw err;
      }
      await navigate(safeNext(params.get('next')), { replace: true });
    });
  };

  return (
    <Page title={t('signIn.title')}>
      <form onSubmit={submit} noValidate className="form">
        {needsCode ? (
          <>
            <Status kind="info">{t('signIn.codeAsked')}</Status>
            <Field
              label={t('signIn.code')}
              name="totp_code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]*"
              maxLength={6}
              value={code}
              onChange={(e) => setCode(e.target.value)}
              autoFocus
              required
              error={action.failure?.forField('totp_code')}
            />
          </>
        ) : (
          <>
            <Field
              label={t('fields.email')}
              type="email"
              name="email"
              autoComplete="username"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              required
              error={action.failure?.forField('email')}
            />
            <Field
              label={t('fields.password')}
              type="password"
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              required
              error={action.failure?.forField('password')}
            />
          </>
        )}
        <Status kind="error">{action.error}</Status>
        <button type="submit" disabled={action.pending}>
          {needsCode ? t('signIn.verify') : t('signIn.submit')}
        </button>
      </form>
      <ul className="links">
        <li>
          <Link to="/registro">{t('signIn.toSignUp')}</Link>
        </li>
        <li>
          <Link to="/recuperar">{t('signIn.toRecover')}</Link>
        </li>
      </ul>
    </Page>
  );
}
