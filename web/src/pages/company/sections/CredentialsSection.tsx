// Hacienda's ATV credentials of the company for sandbox or production: tested against Hacienda's
// sign-in service before they are kept; a refusal is explained in place.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { request, type Mode } from '../../../api.ts';
import { formatDateTime } from '../../../format.ts';
import { Field, Status, useAction } from '../../../ui/forms.tsx';
import type { Company } from '../useCompany.ts';
import { ModeSelect } from './ModeSelect.tsx';

interface Verified {
  mode: Mode;
  username: string;
  verified_at: string;
}

export function CredentialsSection({
  company,
  onSaved,
}: {
  company: Company;
  onSaved(): Promise<void> | void;
}) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<Mode>('test');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [verified, setVerified] = useState<Verified | null>(null);
  const action = useAction();
  const save = (e: FormEvent) => {
    e.preventDefault();
    setVerified(null);
    void action.run(async () => {
      setVerified(
        await request<Verified>('PUT', '/api/v1/company/hacienda_credentials', { mode, username, password }),
      );
      setPassword('');
      await onSaved();
    });
  };
  const retest = () => {
    setVerified(null);
    void action.run(async () => {
      setVerified(await request<Verified>('POST', '/api/v1/company/hacienda_credentials/test', { mode }));
    });
  };
  return (
    <form onSubmit={save} noValidate className="form" aria-labelledby="cred-title">
      <h2 id="cred-title">{t('credentials.title')}</h2>
      <p>{t('credentials.text')}</p>
      {company.hacienda_credentials_configured ? <p>{t('credentials.configured')}</p> : null}
      <ModeSelect value={mode} onChange={setMode} />
      <Field
        label={t('credentials.username')}
        name="username"
        autoComplete="off"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
        required
        error={action.failure?.forField('username')}
      />
      <Field
        label={t('credentials.password')}
        type="password"
        name="hacienda_password"
        autoComplete="off"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        required
        error={action.failure?.forField('password')}
      />
      <Status kind="success">
        {verified
          ? t('credentials.verified', {
              username: verified.username,
              at: formatDateTime(verified.verified_at),
            })
          : null}
      </Status>
      <Status kind="error">{action.error}</Status>
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {action.pending ? t('credentials.testing') : t('credentials.submit')}
        </button>
        {company.hacienda_credentials_configured ? (
          <button type="button" className="secondary" onClick={retest} disabled={action.pending}>
            {t('credentials.retest')}
          </button>
        ) : null}
      </div>
    </form>
  );
}
