// /app/empresas/nueva: the onboarding wizard. First the cédula (creates the company), then its
// data, certificate, Hacienda credentials, branches, email and logo, and the go-live checklist,
// one step per page (?paso=). Any step can be left; /app/empresa has the same sections.
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Status } from '../../ui/forms.tsx';
import { Page } from '../../ui/page.tsx';
import { CreateCompany, type CreatedCompany } from './CreateCompany.tsx';
import { STEPS, StepSections, isStep, type Step } from './sections.tsx';
import { useCompany } from './useCompany.ts';

function StepNav({ step }: { step: Step }) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('wizard.steps')}>
      <ol className="steps">
        {STEPS.map((s, i) => (
          <li key={s}>
            <Link to={`?paso=${s}`} aria-current={s === step ? 'step' : undefined}>
              {i + 2}. {t(`wizard.step.${s}`)}
            </Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}

function WizardStep({ step, created }: { step: Step; created: CreatedCompany | null }) {
  const { t } = useTranslation();
  const { company, reload } = useCompany();
  const next = STEPS[STEPS.indexOf(step) + 1];
  return (
    <>
      <StepNav step={step} />
      {created && step === 'datos' ? (
        <Status kind="success">
          {t('wizard.created', {
            name: created.emisor.legal_name,
            activity: created.emisor.activity_code ?? '—',
          })}
        </Status>
      ) : null}
      {company ? (
        <StepSections step={step} company={company} reload={reload} />
      ) : (
        <p role="status">{t('app.loading')}</p>
      )}
      <div className="actions">
        {next ? (
          <Link className="button-link" to={`?paso=${next}`}>
            {t('wizard.next')}: {t(`wizard.step.${next}`)}
          </Link>
        ) : (
          <Link className="button-link" to="/">
            {t('wizard.finish')}
          </Link>
        )}
        <Link to="/empresa">{t('wizard.later')}</Link>
      </div>
    </>
  );
}

export function NewCompany() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const [created, setCreated] = useState<CreatedCompany | null>(null);
  const step = params.get('paso');
  return (
    <Page title={t('wizard.title')}>
      {isStep(step) ? (
        <WizardStep step={step} created={created} />
      ) : (
        <CreateCompany
          onCreated={(company) => {
            setCreated(company);
            setParams({ paso: 'datos' });
          }}
        />
      )}
    </Page>
  );
}
