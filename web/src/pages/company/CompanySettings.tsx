// /app/empresa: every section of the company's set-up on one page (the wizard's steps, resumable).
import { useTranslation } from 'react-i18next';
import { Status, useErrorText } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';
import { STEPS, StepSections } from './sections.tsx';
import { useCompany } from './useCompany.ts';

export function CompanySettings() {
  const { t } = useTranslation();
  const { company, error, reload } = useCompany();
  const text = useErrorText();
  return (
    <Page title={t('company.title')} wide>
      <Status kind="error">{error ? text(error) : null}</Status>
      {company ? STEPS.map((s) => <StepSections key={s} step={s} company={company} reload={reload} />) : null}
    </Page>
  );
}
