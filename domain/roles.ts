// The roles a person holds in a company, and the scopes each one grants. A signed-in person's
// requests are authorized by exactly the same scopes as an API key's, so a route needs one rule
// for both (the same isolation as the API's).
//   owner          everything, and the only role that may make or unmake owners;
//   administrator  everything else: settings, certificate, keys, webhooks, people;
//   accountant     reads everything, answers received documents, reports and the audit log;
//   issuer         issues documents and keeps clients, services and payments;
//   viewer         reads documents, clients, services and the company.
import type { Scope } from './scopes.ts';
import { SCOPES } from './scopes.ts';

export const ROLES = ['owner', 'administrator', 'accountant', 'issuer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: string): v is Role {
  return (ROLES as readonly string[]).includes(v);
}

const READ: Scope[] = ['read:invoices', 'read:clients', 'read:services', 'read:company'];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  administrator: SCOPES,
  accountant: [...READ, 'read:usage', 'answer:received', 'read:reports', 'read:audit'],
  issuer: [...READ, 'write:invoices', 'write:drafts', 'write:clients', 'write:services', 'write:payments'],
  viewer: READ,
};

/** Spanish (Costa Rica) and English names of each role, for the application and emails. */
export const ROLE_NAMES: Record<Role, { es: string; en: string }> = {
  owner: { es: 'Propietario', en: 'Owner' },
  administrator: { es: 'Administrador', en: 'Administrator' },
  accountant: { es: 'Contador', en: 'Accountant' },
  issuer: { es: 'Facturador', en: 'Issuer' },
  viewer: { es: 'Consulta', en: 'Viewer' },
};
