// What the session routes answer (GET/POST /api/v1/session): the signed-in person, the companies
// they belong to with their role and scopes, and the CSRF token of unsafe requests.
import type { Language } from './i18n/index.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  locale: Language;
  email_confirmed: boolean;
  totp_enabled: boolean;
}

export interface MembershipCompany {
  id: string;
  name: string;
  identification: string;
  plan: string;
  live_enabled: boolean;
}

export interface Membership {
  company: MembershipCompany;
  role: string;
  scopes: string[];
}

export interface SessionAnswer {
  user: User;
  memberships: Membership[];
  csrf_token: string;
}
