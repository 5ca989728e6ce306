import { useTranslation } from 'react-i18next';
import { Page } from '../../ui/page.tsx';

export function Recover() {
  const { t } = useTranslation();
  return (
    <Page title={t('pending.title')}>
      <p>{t('pending.text')}</p>
    </Page>
  );
}
