// Who acts for which company, with which role (domain/roles.ts). A person's memberships come with
// the company's public facts the application shows (name, identification, plan, whether it has
// gone live). `live_enabled_at` is read through the row's JSON so this works whether or not the
// column is there yet.
import type { Knex } from 'knex';
import type { Role } from '../../domain/roles.ts';

export interface MembershipRow {
  companyId: number;
  userId: number;
  role: Role;
  createdAt: Date;
  companyName: string;
  idNumber: string;
  plan: string;
  rateLimitPerSecond: number | null;
  liveEnabled: boolean;
}

const LIVE_ENABLED = `(to_jsonb(c.*) ->> 'live_enabled_at') is not null as live_enabled`;

function withCompany(db: Knex) {
  return db('memberships as m')
    .join('companies as c', 'c.id', 'm.company_id')
    .select(
      'm.company_id',
      'm.user_id',
      'm.role',
      'm.created_at',
      'c.name as company_name',
      'c.id_number',
      'c.plan',
      'c.rate_limit_per_second',
      db.raw(LIVE_ENABLED),
    );
}

export async function membershipsOf(db: Knex, userId: number): Promise<MembershipRow[]> {
  return withCompany(db).where('m.user_id', userId).orderBy('m.company_id');
}

export async function membershipOf(
  db: Knex,
  userId: number,
  companyId: number,
): Promise<MembershipRow | undefined> {
  return withCompany(db).where({ 'm.user_id': userId, 'm.company_id': companyId }).first();
}

/** Adds a person to a company (an existing membership keeps its role). */
export async function addMembership(db: Knex, companyId: number, userId: number, role: Role): Promise<void> {
  await db('memberships').insert({ companyId, userId, role }).onConflict(['company_id', 'user_id']).ignore();
}

export interface MemberRow {
  userId: number;
  email: string;
  name: string;
  role: Role;
  createdAt: Date;
}

/** A company's members with their names, oldest first. */
export async function listMembers(db: Knex, companyId: number): Promise<MemberRow[]> {
  return db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.company_id', companyId)
    .orderBy('m.created_at')
    .select('m.user_id', 'u.email', 'u.name', 'm.role', 'm.created_at');
}

/**
 * The company's memberships, locked for a change of roles (so two changes cannot each leave the
 * other's owner as the last one and both go through).
 */
export async function lockMemberships(
  trx: Knex,
  companyId: number,
): Promise<{ userId: number; role: Role }[]> {
  const rows = await trx('memberships').where({ companyId }).forUpdate().select('userId', 'role');
  return rows.map((r: { userId: string | number; role: Role }) => ({
    userId: Number(r.userId),
    role: r.role,
  }));
}

export async function setMemberRole(trx: Knex, companyId: number, userId: number, role: Role): Promise<void> {
  await trx('memberships').where({ companyId, userId }).update({ role });
}

export async function removeMember(trx: Knex, companyId: number, userId: number): Promise<void> {
  await trx('memberships').where({ companyId, userId }).delete();
}
