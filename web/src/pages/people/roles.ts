// The roles a person may hold in a company (their names are in the i18n files, `roles.*`), and
// what GET /api/v1/members answers (from the generated schema).
import type { Schemas } from '../../api.ts';

export const ROLES = ['owner', 'administrator', 'accountant', 'issuer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return ROLES.includes(value as Role);
}

export type MemberList = Schemas['MemberList'];
