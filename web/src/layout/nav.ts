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
  { to: '/empresa', label: 'nav.company', scope: 'manage:company' },
  { to: '/personas', label: 'nav.people', scope: 'manage:members' },
  { to: '/cuenta', label: 'nav.account' },
];
