// /app/cuenta: the person's own account: name and language, two-step verification, sessions.
import { useTranslation } from 'react-i18next';
import { Page } from '../../ui/page.tsx';
import { Profile } from './Profile.tsx';
import { Sessions } from './Sessions.tsx';
import { Totp } from './Totp.tsx';

export function Account() {
  const { t } = useTranslation();
  return (
    <Page title={t('account.title')} wide>
      <Profile />
      <Totp />
      <Sessions />
    </Page>
  );
}
