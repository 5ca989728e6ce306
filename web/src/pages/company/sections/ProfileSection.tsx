// The company's emisor data: names, activity, email, phone and location (PATCH /api/v1/company).
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../../api.ts';
import { Field, Status, useAction } from '../../../ui/forms.tsx';
import type { Company } from '../useCompany.ts';

type Form = Record<
  | 'name'
  | 'legal_name'
  | 'commercial_name'
  | 'activity_code'
  | 'email'
  | 'phone'
  | 'provincia'
  | 'canton'
  | 'distrito'
  | 'barrio'
  | 'otras_senas',
  string
>;

function formOf(c: Company): Form {
  const l = c.emisor.location;
  return {
    name: c.name,
    legal_name: c.emisor.legal_name,
    commercial_name: c.emisor.commercial_name ?? '',
    activity_code: c.emisor.activity_code ?? '',
    email: c.emisor.emails[0] ?? '',
    phone: c.emisor.phone?.number ?? '',
    provincia: l.provincia ?? '',
    canton: l.canton ?? '',
    distrito: l.distrito ?? '',
    barrio: l.barrio ?? '',
    otras_senas: l.otras_senas ?? '',
  };
}

function bodyOf(f: Form) {
  const located = f.provincia || f.canton || f.distrito || f.otras_senas;
  return {
    name: f.name,
    legal_name: f.legal_name,
    commercial_name: f.commercial_name || null,
    ...(f.activity_code ? { activity_code: f.activity_code } : {}),
    ...(f.email ? { email: f.email } : {}),
    phone: f.phone ? { country_code: '506', number: f.phone.replace(/\D/g, '') } : null,
    ...(located
      ? {
          location: {
            provincia: f.provincia,
            canton: f.canton,
            distrito: f.distrito,
            barrio: f.barrio || null,
            otras_senas: f.otras_senas,
          },
        }
      : {}),
  };
}

export function ProfileSection({ company, onSaved }: { company: Company; onSaved(): Promise<void> | void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState<Form>(() => formOf(company));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const field = (name: keyof Form, extra: Record<string, unknown> = {}) => ({
    label: t(`company.fields.${name}`),
    name,
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value }),
    error: action.failure?.forField(name) ?? action.failure?.forField(`location/${name}`),
    ...extra,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      await unwrap(api.PATCH('/api/v1/company', { body: bodyOf(form) }));
      setSaved(true);
      await onSaved();
    });
  };
  return (
    <form onSubmit={submit} noValidate className="form" aria-labelledby="profile-title">
      <h2 id="profile-title">{t('company.profile')}</h2>
      <p>
        {t('company.fields.identification')}: <strong>{company.emisor.identification.number}</strong>
      </p>
      <Field {...field('name')} required />
      <Field {...field('legal_name')} required />
      <Field {...field('commercial_name')} />
      <Field
        {...field('activity_code', { inputMode: 'numeric', maxLength: 6, hint: t('company.activityHint') })}
      />
      <Field {...field('email', { type: 'email', autoComplete: 'email' })} />
      <Field {...field('phone', { type: 'tel', autoComplete: 'tel-national' })} />
      <fieldset>
        <legend>{t('company.location')}</legend>
        <Field {...field('provincia', { inputMode: 'numeric', maxLength: 1 })} />
        <Field {...field('canton', { inputMode: 'numeric', maxLength: 2 })} />
        <Field {...field('distrito', { inputMode: 'numeric', maxLength: 2 })} />
        <Field {...field('barrio')} />
        <Field {...field('otras_senas')} />
      </fieldset>
      <Status kind="success">{saved ? t('common.saved') : null}</Status>
      <Status kind="error">{action.error}</Status>
      <button type="submit" disabled={action.pending}>
        {t('common.save')}
      </button>
    </form>
  );
}
