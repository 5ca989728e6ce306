// The roles a person may hold in a company (their names are in the i18n files, `roles.*`), and
// what GET /api/v1/members answers.
export const ROLES = ['owner', 'administrator', 'accountant', 'issuer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface MemberList {
  data: { user: { id: string; email: string; name: string }; role: Role; created_at: string }[];
  invitations: { id: string; email: string; role: Role; expires_at: string }[];
}
