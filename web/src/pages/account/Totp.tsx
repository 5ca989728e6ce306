// Two-step verification: set up (the otpauth URL as text and as a QR code, confirmed with a
// first code) or turned off (with a current code).
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import QRCode from 'qrcode';
import { request } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';

interface Setup {
  secret: string;
  otpauth_url: string;
}

/** The QR code of the otpauth URL, as inline SVG (no image URL: the CSP allows only this origin). */
function QrCode({ text, label }: { text: string; label: string }) {
  const [svg, setSvg] = useState('');
  useEffect(() => {
    void QRCode.toString(text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }).then(setSvg);
  }, [text]);
  return <div className="qr" role="img" aria-label={label} dangerouslySetInnerHTML={{ __html: svg }} />;
}

export function Totp() {
  const { t } = useTranslation();
  const session = useSession();
  const enabled = Boolean(session.user?.totp_enabled);
  const [setup, setSetup] = useState<Setup | null>(null);
  const [code, setCode] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const action = useAction();

  const start = () =>
    void action.run(async () => {
      setMessage(null);
      setSetup(await request<Setup>('POST', '/api/v1/account/totp'));
    });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      if (enabled) await request('DELETE', '/api/v1/account/totp', { code });
      else await request('POST', '/api/v1/account/totp/confirm', { code });
      setMessage(enabled ? t('totp.disabled') : t('totp.enabled'));
      setSetup(null);
      setCode('');
      await session.refresh();
    });
  };

  const codeForm = (
    <form onSubmit={submit} noValidate>
      <Field
        label={t('signIn.code')}
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        required
        error={action.failure?.forField('code')}
      />
      <button type="submit" className={enabled ? 'danger' : undefined} disabled={action.pending}>
        {enabled ? t('totp.disable') : t('totp.confirm')}
      </button>
    </form>
  );
  return (
    <section className="card" aria-labelledby="totp-title">
      <h2 id="totp-title">{t('totp.title')}</h2>
      <p>{enabled ? t('totp.isOn') : t('totp.isOff')}</p>
      {setup ? (
        <>
          <p>{t('totp.scan')}</p>
          <QrCode text={setup.otpauth_url} label={t('totp.qr')} />
          <p>{t('totp.orType')}</p>
          <p className="mono" data-testid="totp-secret">
            {setup.secret}
          </p>
          <p className="mono" data-testid="totp-url">
            {setup.otpauth_url}
          </p>
        </>
      ) : null}
      <Status kind="success">{message}</Status>
      <Status kind="error">{action.error}</Status>
      {enabled || setup ? (
        codeForm
      ) : (
        <button type="button" onClick={start} disabled={action.pending}>
          {t('totp.start')}
        </button>
      )}
    </section>
  );
}
