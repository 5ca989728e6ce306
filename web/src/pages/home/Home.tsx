// The start page of a signed-in person: the current company and where to go next.
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { MonthTotals } from './MonthTotals.tsx';
import { Usage } from './Usage.tsx';

export function Home() {
  const { t } = useTranslation();
  const { user, current, mode, can } = useSession();
  return (
    <Page title={t('home.title', { name: user?.name ?? '' })} wide>
      {current ? (
        <dl className="facts">
          <dt>{t('home.company')}</dt>
          <dd>{current.company.name}</dd>
          <dt>{t('home.identification')}</dt>
          <dd>{current.company.identification}</dd>
          <dt>{t('home.role')}</dt>
          <dd>{t(`roles.${current.role}`)}</dd>
          <dt>{t('layout.mode')}</dt>
          <dd>{t(`mode.${mode}`)}</dd>
        </dl>
      ) : null}
      {can('read:reports') ? <MonthTotals /> : null}
      {can('read:usage') ? <Usage /> : null}
      <ul className="links">
        {can('write:invoices') ? (
          <li>
            <Link to="/documentos/nuevo?tipo=01">{t('docs.new')}</Link>
          </li>
        ) : null}
        <li>
          <Link to="/empresa">{t('home.settings')}</Link>
        </li>
        <li>
          <Link to="/empresas/nueva">{t('home.newCompany')}</Link>
        </li>
      </ul>
    </Page>
  );
}
