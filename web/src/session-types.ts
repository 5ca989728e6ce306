// What the session routes answer (GET/POST /api/v1/session): the signed-in person, the companies
// they belong to with their role and scopes, and the CSRF token of unsafe requests. Taken from the
// generated schema, so they follow the OpenAPI document.
import type { Schemas } from './api.ts';

export type User = Schemas['User'];
export type Membership = Schemas['Membership'];
export type MembershipCompany = Membership['company'];
export type SessionAnswer = Schemas['SessionState'];
