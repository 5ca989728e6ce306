// The sections of a company's set-up, in the wizard's order; the settings page shows them all.
import type { ReactNode } from 'react';
import { BranchesSection } from './sections/BranchesSection.tsx';
import { CertificateSection } from './sections/CertificateSection.tsx';
import { CredentialsSection } from './sections/CredentialsSection.tsx';
import { EmailSection } from './sections/EmailSection.tsx';
import { GoLiveSection } from './sections/GoLiveSection.tsx';
import { LogoSection } from './sections/LogoSection.tsx';
import { ProfileSection } from './sections/ProfileSection.tsx';
import type { Company } from './useCompany.ts';

export const STEPS = ['datos', 'certificado', 'hacienda', 'sucursales', 'correo', 'produccion'] as const;
export type Step = (typeof STEPS)[number];

export function isStep(value: string | null): value is Step {
  return STEPS.includes(value as Step);
}

/** One step's sections for a company (reload: read the company again after a change). */
export function StepSections({
  step,
  company,
  reload,
}: {
  step: Step;
  company: Company;
  reload(): Promise<void>;
}): ReactNode {
  switch (step) {
    case 'datos':
      return <ProfileSection key={company.id} company={company} onSaved={reload} />;
    case 'certificado':
      return <CertificateSection company={company} onSaved={reload} />;
    case 'hacienda':
      return <CredentialsSection company={company} onSaved={reload} />;
    case 'sucursales':
      return <BranchesSection />;
    case 'correo':
      return (
        <>
          <EmailSection key={company.id} company={company} onSaved={reload} />
          <LogoSection companyId={company.id} />
        </>
      );
    case 'produccion':
      return <GoLiveSection key={company.id} />;
  }
}
