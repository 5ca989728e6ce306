// Pages behind a session: while it loads, a polite "loading"; signed out, to /ingresar with the
// page to come back to; signed in without any company, to the company wizard.
import { Navigate, Outlet, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../session.tsx';

/** Pages a person without any company may still open. */
const WITHOUT_COMPANY = ['/empresas/nueva', '/cuenta'];

export function RequireSession() {
  const { t } = useTranslation();
  const session = useSession();
  const location = useLocation();
  if (session.status === 'loading')
    return (
      <p role="status" className="loading">
        {t('app.loading')}
      </p>
    );
  if (session.status === 'signed-out') {
    const next = location.pathname + location.search;
    return <Navigate to={`/ingresar?next=${encodeURIComponent(next)}`} replace />;
  }
  if (!session.current && !WITHOUT_COMPANY.includes(location.pathname))
    return <Navigate to="/empresas/nueva" replace />;
  return <Outlet />;
}
