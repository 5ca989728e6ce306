// Inviting someone by email with a role: they get a link valid for 7 days.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { Field, Status, useAction } from '../../ui/forms.tsx';
import { ROLES, type Role } from './roles.ts';

export function InviteForm({ onInvited }: { onInvited(): Promise<void> }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('issuer');
  const [sent, setSent] = useState<string | null>(null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSent(null);
    void action.run(async () => {
      await request('POST', '/api/v1/members/invitations', { email, role });
      setSent(email);
      setEmail('');
      await onInvited();
    });
  };
  return (
    <form onSubmit={submit} noValidate className="form" aria-labelledby="invite-title">
      <h2 id="invite-title">{t('people.invite')}</h2>
      <Field
        label={t('fields.email')}
        type="email"
        name="invite_email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        required
        error={action.failure?.forField('email')}
      />
      <div className="field">
        <label htmlFor="invite-role">{t('people.role')}</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`roles.${r}`)}
            </option>
          ))}
        </select>
      </div>
      <Status kind="success">{sent ? t('people.sent', { email: sent }) : null}</Status>
      <Status kind="error">{action.error}</Status>
      <button type="submit" disabled={action.pending}>
        {t('people.send')}
      </button>
    </form>
  );
}
