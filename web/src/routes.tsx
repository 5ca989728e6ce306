// Every page of the application and where it lives under /app/. Public pages (signing in and
// the links of emails) sit in the public frame; the rest need a session (RequireSession) and most
// a company. Add a page: its component in pages/<area>/, a route here, a NAV entry if it has one.
import type { RouteObject } from 'react-router';
import { Layout } from './layout/Layout.tsx';
import { RequireSession } from './layout/RequireSession.tsx';
import { NotFound } from './pages/NotFound.tsx';
import { Home } from './pages/home/Home.tsx';
import { SignIn } from './pages/auth/SignIn.tsx';
import { SignUp } from './pages/auth/SignUp.tsx';
import { Confirm } from './pages/auth/Confirm.tsx';
import { Recover } from './pages/auth/Recover.tsx';
import { Reset } from './pages/auth/Reset.tsx';
import { Invitation } from './pages/auth/Invitation.tsx';
import { Account } from './pages/account/Account.tsx';
import { NewCompany } from './pages/company/NewCompany.tsx';
import { CompanySettings } from './pages/company/CompanySettings.tsx';
import { People } from './pages/people/People.tsx';

export const routes: RouteObject[] = [
  {
    element: <Layout signedIn={false} />,
    children: [
      { path: 'ingresar', element: <SignIn /> },
      { path: 'registro', element: <SignUp /> },
      { path: 'confirmar', element: <Confirm /> },
      { path: 'recuperar', element: <Recover /> },
      { path: 'restablecer', element: <Reset /> },
      { path: 'invitacion', element: <Invitation /> },
    ],
  },
  {
    element: <RequireSession />,
    children: [
      {
        element: <Layout signedIn />,
        children: [
          { index: true, element: <Home /> },
          { path: 'cuenta', element: <Account /> },
          { path: 'empresas/nueva', element: <NewCompany /> },
          { path: 'empresa', element: <CompanySettings /> },
          { path: 'personas', element: <People /> },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
];
