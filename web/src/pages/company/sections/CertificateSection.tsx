// The signing certificate (.p12 of Hacienda's ATV) for sandbox or production: the file is read in
// the browser, sent as base64 with its PIN and checked on the spot (opens, current, this taxpayer).
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { request, type Mode } from '../../../api.ts';
import { formatDate } from '../../../format.ts';
import { Field, FormError, Status, useAction } from '../../../ui/forms.tsx';
import { fileBase64, type Company } from '../useCompany.ts';
import { ModeSelect } from './ModeSelect.tsx';

interface Stored {
  mode: Mode;
  subject: string | null;
  not_after: string | null;
}

export function CertificateSection({
  company,
  onSaved,
}: {
  company: Company;
  onSaved(): Promise<void> | void;
}) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<Mode>('test');
  const [pin, setPin] = useState('');
  const [stored, setStored] = useState<Stored | null>(null);
  const file = useRef<HTMLInputElement>(null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setStored(null);
    void action.run(async () => {
      const chosen = file.current?.files?.[0];
      if (!chosen) throw new FormError(t('certificate.noFile'));
      const p12_base64 = await fileBase64(chosen);
      setStored(await request<Stored>('PUT', '/api/v1/company/certificate', { mode, p12_base64, pin }));
      setPin('');
      await onSaved();
    });
  };
  const err = action.failure;
  const current = company.certificate;
  return (
    <form onSubmit={submit} noValidate className="form" aria-labelledby="cert-title">
      <h2 id="cert-title">{t('certificate.title')}</h2>
      <p>{t('certificate.text')}</p>
      {current?.not_after ? (
        <p>
          {t('certificate.current', { subject: current.subject ?? '', date: formatDate(current.not_after) })}
        </p>
      ) : null}
      <ModeSelect value={mode} onChange={setMode} />
      <div className="field">
        <label htmlFor="cert-file">{t('certificate.file')}</label>
        <input
          id="cert-file"
          ref={file}
          type="file"
          accept=".p12,.pfx,application/x-pkcs12"
          aria-invalid={err?.forField('p12_base64') ? true : undefined}
        />
        {err?.forField('p12_base64') ? <p className="field-error">{err.forField('p12_base64')}</p> : null}
      </div>
      <Field
        label={t('certificate.pin')}
        type="password"
        name="pin"
        autoComplete="off"
        value={pin}
        onChange={(e) => setPin(e.target.value)}
        required
        error={err?.forField('pin')}
      />
      <Status kind="success">
        {stored
          ? t('certificate.stored', {
              subject: stored.subject ?? '',
              date: stored.not_after ? formatDate(stored.not_after) : '—',
            })
          : null}
      </Status>
      <Status kind="error">{action.error}</Status>
      <button type="submit" disabled={action.pending}>
        {t('certificate.submit')}
      </button>
    </form>
  );
}
