// The navigation of the signed-in application: one entry per area, shown when the person's role
// in the current company has the scope (none: always shown). Add an area's entry here.
export interface NavEntry {
  to: string;
  /** i18n key of its label. */
  label: string;
  scope?: string;
}

export const NAV: NavEntry[] = [
  { to: '/', label: 'nav.home' },
  { to: '/documentos', label: 'nav.documents', scope: 'read:invoices' },
  { to: '/recibidos', label: 'nav.received', scope: 'read:invoices' },
  { to: '/clientes', label: 'nav.clients', scope: 'read:clients' },
  { to: '/servicios', label: 'nav.services', scope: 'read:services' },
  { to: '/reportes', label: 'nav.reports', scope: 'read:reports' },
  { to: '/empresa', label: 'nav.company', scope: 'manage:company' },
  { to: '/personas', label: 'nav.people', scope: 'manage:members' },
  { to: '/desarrolladores', label: 'nav.developers', scope: 'manage:keys' },
  { to: '/auditoria', label: 'nav.audit', scope: 'read:audit' },
  { to: '/cuenta', label: 'nav.account' },
];
