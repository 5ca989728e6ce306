// The first step of the wizard: the company's cédula (and, optionally, its name). The service
// fills the name and activity from Hacienda's taxpayer register when it knows them; the person
// becomes its owner and the company starts in sandbox.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { request } from '../../api.ts';
import { useSession } from '../../session.tsx';
import { Field, Status, useAction } from '../../ui/forms.tsx';

export interface CreatedCompany {
  id: string;
  name: string;
  emisor: { legal_name: string; activity_code: string | null };
}

export function CreateCompany({ onCreated }: { onCreated(company: CreatedCompany): void }) {
  const { t } = useTranslation();
  const session = useSession();
  const [identification, setIdentification] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { identification, ...(name.trim() ? { name: name.trim() } : {}) };
      const company = await request<CreatedCompany>('POST', '/api/v1/companies', body);
      await session.refresh();
      session.selectCompany(company.id);
      onCreated(company);
    });
  };
  return (
    <form onSubmit={submit} noValidate className="form" aria-labelledby="create-title">
      <h2 id="create-title">{t('wizard.identification')}</h2>
      <p>{t('wizard.identificationText')}</p>
      <Field
        label={t('company.fields.identification')}
        name="identification"
        inputMode="numeric"
        value={identification}
        onChange={(e) => setIdentification(e.target.value)}
        required
        hint={t('wizard.identificationHint')}
        error={action.failure?.forField('identification')}
      />
      <Field
        label={t('wizard.nameOptional')}
        name="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={action.failure?.forField('name')}
      />
      <Status kind="error">{action.error}</Status>
      <button type="submit" disabled={action.pending}>
        {t('wizard.create')}
      </button>
    </form>
  );
}
