// Every page of the application and where it lives under /app/. Public pages (signing in and
// the links of emails) sit in the public frame; the rest need a session (RequireSession) and most
// a company. Add a page: its component in pages/<area>/ (and its area's index.ts), a lazy page and
// a route here, a NAV entry if it has one.
import { lazy, type ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import { Layout } from './layout/Layout.tsx';
import { RequireSession } from './layout/RequireSession.tsx';
import { NotFound } from './pages/NotFound.tsx';
import './pages.css';

/**
 * A page that loads with its area's chunk the first time it is shown (the frame's Suspense says
 * "Cargando…" meanwhile), so signing in loads only the frame and the sign-in pages.
 */
function page<M>(load: () => Promise<M>, name: keyof M): ComponentType {
  return lazy(async () => ({ default: (await load())[name] as ComponentType }));
}

const auth = () => import('./pages/auth/index.ts');
const company = () => import('./pages/company/index.ts');
const documents = () => import('./pages/documents/index.ts');
const catalog = () => import('./pages/catalog/index.ts');
const reports = () => import('./pages/reports/index.ts');

const SignIn = page(auth, 'SignIn');
const SignUp = page(auth, 'SignUp');
const Confirm = page(auth, 'Confirm');
const Recover = page(auth, 'Recover');
const Reset = page(auth, 'Reset');
const Invitation = page(auth, 'Invitation');
const Home = page(() => import('./pages/home/Home.tsx'), 'Home');
const Account = page(() => import('./pages/account/Account.tsx'), 'Account');
const NewCompany = page(company, 'NewCompany');
const CompanySettings = page(company, 'CompanySettings');
const People = page(() => import('./pages/people/People.tsx'), 'People');
const DocumentList = page(documents, 'DocumentList');
const DocumentPage = page(documents, 'DocumentPage');
const ReceivedPage = page(documents, 'ReceivedPage');
const NewDocument = page(() => import('./pages/documents/NewDocument.tsx'), 'NewDocument');
const Clients = page(catalog, 'Clients');
const Services = page(catalog, 'Services');
const Developers = page(() => import('./pages/developers/Developers.tsx'), 'Developers');
const Reports = page(reports, 'Reports');
const Audit = page(reports, 'Audit');

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
