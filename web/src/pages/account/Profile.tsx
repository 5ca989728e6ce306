// The person's name and language (PATCH /api/v1/account). The language applies at once.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api.ts';
import { isLanguage, setLanguage, type Language } from '../../i18n/index.ts';
import { useSession } from '../../session.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';

export function Profile() {
  const { t } = useTranslation();
  const session = useSession();
  const [name, setName] = useState(session.user?.name ?? '');
  const userLocale = session.user?.locale;
  const [locale, setLocale] = useState<Language>(isLanguage(userLocale) ? userLocale : 'es-CR');
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      await setLanguage(locale);
      await unwrap(api.PATCH('/api/v1/account', { body: { name, locale } }));
      await session.refresh();
      setSaved(true);
    });
  };
  return (
    <form onSubmit={submit} className="form" aria-labelledby="profile-title">
      <h2 id="profile-title">{t('account.profile')}</h2>
      <p>
        {t('fields.email')}: <strong>{session.user?.email}</strong>
      </p>
      <Field
        label={t('fields.name')}
        name="name"
        autoComplete="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        error={action.failure?.forField('name')}
      />
      <div className="field">
        <label htmlFor="account-locale">{t('fields.language')}</label>
        <select
          id="account-locale"
          value={locale}
          onChange={(e) => isLanguage(e.target.value) && setLocale(e.target.value)}
        >
          <option value="es-CR">Español (Costa Rica)</option>
          <option value="en">English</option>
        </select>
      </div>
      <Status kind="success">{saved ? t('common.saved') : null}</Status>
      <Status kind="error">{action.error}</Status>
      <button type="submit" disabled={action.pending}>
        {t('common.save')}
      </button>
    </form>
  );
}
