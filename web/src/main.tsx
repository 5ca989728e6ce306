// The application's entry: languages, the session, the router (under /app/) and the stylesheet.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import './i18n/index.ts';
import './styles.css';
import { SessionProvider } from './session.tsx';
import { routes } from './routes.tsx';

const router = createBrowserRouter(routes, { basename: '/app' });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <SessionProvider>
      <RouterProvider router={router} />
    </SessionProvider>
  </StrictMode>,
);
