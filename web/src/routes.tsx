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
import { DocumentList } from './pages/documents/DocumentList.tsx';
import { DocumentPage } from './pages/documents/DocumentPage.tsx';
import { NewDocument } from './pages/documents/NewDocument.tsx';
import { ReceivedPage } from './pages/received/Received.tsx';
import { Clients } from './pages/catalog/Clients.tsx';
import { Services } from './pages/catalog/Services.tsx';
import { Developers } from './pages/developers/Developers.tsx';
import { Reports } from './pages/reports/Reports.tsx';
import { Audit } from './pages/audit/Audit.tsx';
import './pages.css';

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
          { path: 'documentos', element: <DocumentList /> },
          { path: 'documentos/nuevo', element: <NewDocument /> },
          { path: 'documentos/:id', element: <DocumentPage /> },
          { path: 'recibidos', element: <ReceivedPage /> },
          { path: 'clientes', element: <Clients /> },
          { path: 'servicios', element: <Services /> },
          { path: 'desarrolladores', element: <Developers /> },
          { path: 'reportes', element: <Reports /> },
          { path: 'auditoria', element: <Audit /> },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
];
