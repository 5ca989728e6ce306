// /app/desarrolladores: the company's API keys and webhook endpoints in the current mode, and, for
// owners and administrators, the link to the queues' board (/admin/queues).
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session.tsx';
import { Page } from '../../ui/page.tsx';
import { Keys } from './Keys.tsx';
import { Webhooks } from './Webhooks.tsx';

export function Developers() {
  const { t } = useTranslation();
  const session = useSession();
  const admin = session.current?.role === 'owner' || session.current?.role === 'administrator';
  return (
    <Page title={t('dev.title')} wide>
      <p className="hint">{t('dev.intro', { mode: t(`mode.${session.mode}`) })}</p>
      {session.can('manage:keys') ? <Keys /> : null}
      {session.can('manage:webhooks') ? <Webhooks /> : null}
      {admin ? (
        <p>
          <a href="/admin/queues" id="queues-link">
            {t('dev.queues')}
          </a>
        </p>
      ) : null}
    </Page>
  );
}
