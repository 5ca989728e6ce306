// The frame of every page: a skip link, the header (brand, company switcher with the mode badge,
// language switch, sign-out), the navigation, <main> and the footer. Public pages (sign in, sign
// up…) get the same frame without the company parts. A page still loading its area's chunk shows
// "Cargando…" inside the frame.
import { Suspense } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../session.tsx';
import { CompanySwitch } from './CompanySwitch.tsx';
import { LanguageSwitch } from './LanguageSwitch.tsx';
import { NAV } from './nav.ts';

function Navigation() {
  const { t } = useTranslation();
  const session = useSession();
  const entries = NAV.filter((e) => !e.scope || session.can(e.scope));
  return (
    <nav aria-label={t('layout.navigation')} className="nav">
      <ul>
        {entries.map((e) => (
          <li key={e.to}>
            <NavLink to={e.to} end={e.to === '/'}>
              {t(e.label)}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SignOut() {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  return (
    <button
      type="button"
      className="secondary"
      onClick={() => void session.signOut().finally(() => navigate('/ingresar'))}
    >
      {t('layout.signOut')}
    </button>
  );
}

export function Layout({ signedIn }: { signedIn: boolean }) {
  const { t } = useTranslation();
  return (
    <>
      <a className="skip-link" href="#main">
        {t('layout.skip')}
      </a>
      <header className="header">
        <div className="header-row">
          <span className="brand">{t('app.name')}</span>
          {signedIn ? <CompanySwitch /> : null}
          <div className="header-tools">
            <LanguageSwitch />
            {signedIn ? <SignOut /> : null}
          </div>
        </div>
        {signedIn ? <Navigation /> : null}
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense
          fallback={
            <p role="status" className="loading">
              {t('app.loading')}
            </p>
          }
        >
          <Outlet />
        </Suspense>
      </main>
      <footer className="footer">
        <p>{t('layout.footer')}</p>
      </footer>
    </>
  );
}
