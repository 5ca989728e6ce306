// The logo printed on the invoice PDF: a PNG or JPEG of at most 256 KB, previewed from the API.
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { request } from '../../../api.ts';
import { FormError, Status, useAction } from '../../../ui/forms.tsx';
import { fileBase64 } from '../useCompany.ts';

const MAX_BYTES = 256 * 1024;

export function LogoSection({ companyId }: { companyId: string }) {
  const { t } = useTranslation();
  const [preview, setPreview] = useState<string | null>(null);
  const file = useRef<HTMLInputElement>(null);
  const action = useAction();
  const load = useCallback(async () => {
    const res = await fetch('/api/v1/company/logo', {
      headers: { 'Factura-Company': companyId },
      credentials: 'same-origin',
    });
    setPreview((old) => {
      if (old) URL.revokeObjectURL(old);
      return null;
    });
    if (res.ok) {
      const url = URL.createObjectURL(await res.blob());
      setPreview(url);
    }
  }, [companyId]);
  useEffect(() => {
    load().catch(() => setPreview(null));
  }, [load]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const chosen = file.current?.files?.[0];
      if (!chosen) throw new FormError(t('logo.noFile'));
      if (chosen.size > MAX_BYTES) throw new FormError(t('logo.tooLarge'));
      const content_type = chosen.type === 'image/png' ? 'image/png' : 'image/jpeg';
      await request('PUT', '/api/v1/company/logo', { content_type, data_base64: await fileBase64(chosen) });
      await load();
    });
  };
  const remove = () =>
    void action.run(async () => {
      await request('DELETE', '/api/v1/company/logo');
      await load();
    });
  return (
    <form onSubmit={submit} noValidate className="form" aria-labelledby="logo-title">
      <h2 id="logo-title">{t('logo.title')}</h2>
      {preview ? (
        <img src={preview} alt={t('logo.current')} className="logo-preview" />
      ) : (
        <p>{t('logo.none')}</p>
      )}
      <div className="field">
        <label htmlFor="logo-file">{t('logo.file')}</label>
        <input id="logo-file" ref={file} type="file" accept="image/png,image/jpeg" />
      </div>
      <Status kind="error">{action.error}</Status>
      <div className="actions">
        <button type="submit" disabled={action.pending}>
          {t('logo.submit')}
        </button>
        {preview ? (
          <button type="button" className="danger" onClick={remove} disabled={action.pending}>
            {t('logo.remove')}
          </button>
        ) : null}
      </div>
    </form>
  );
}
