// How invoices are emailed to clients: on or off, the reply-to address and hidden copies.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api.ts';
import { Field, Status, useAction } from '../../../ui/forms.tsx';
import type { Company } from '../useCompany.ts';

export function EmailSection({ company, onSaved }: { company: Company; onSaved(): Promise<void> | void }) {
  const { t } = useTranslation();
  const d = company.email_delivery;
  const [enabled, setEnabled] = useState(d.enabled);
  const [replyTo, setReplyTo] = useState(d.reply_to ?? '');
  const [bcc, setBcc] = useState(d.bcc.join(', '));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      const copies = bcc.split(/[,;\s]+/).filter(Boolean);
      await unwrap(
        api.PATCH('/api/v1/company', {
          body: { email_delivery: { enabled, reply_to: replyTo || null, bcc: copies } },
        }),
      );
      setSaved(true);
      await onSaved();
    });
  };
  return (
    <form onSubmit={submit} noValidate className="form" aria-labelledby="email-title">
      <h2 id="email-title">{t('emailSettings.title')}</h2>
      <div className="field checkbox">
        <label>
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />{' '}
          {t('emailSettings.enabled')}
        </label>
      </div>
      <Field
        label={t('emailSettings.replyTo')}
        type="email"
        name="reply_to"
        value={replyTo}
        onChange={(e) => setReplyTo(e.target.value)}
        error={action.failure?.forField('email_delivery/reply_to')}
      />
      <Field
        label={t('emailSettings.bcc')}
        name="bcc"
        value={bcc}
        onChange={(e) => setBcc(e.target.value)}
        hint={t('emailSettings.bccHint')}
        error={action.failure?.forField('email_delivery/bcc')}
      />
      <Status kind="success">{saved ? t('common.saved') : null}</Status>
      <Status kind="error">{action.error}</Status>
      <button type="submit" disabled={action.pending}>
        {t('common.save')}
      </button>
    </form>
  );
}
