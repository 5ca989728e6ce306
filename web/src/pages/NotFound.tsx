import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { Page } from '../ui/page.tsx';

export function NotFound() {
  const { t } = useTranslation();
  return (
    <Page title={t('notFound.title')}>
      <p>{t('notFound.text')}</p>
      <p>
        <Link to="/">{t('nav.home')}</Link>
      </p>
    </Page>
  );
}
