// Who may change whose role: only an owner makes, changes or removes an owner, and a company always
// keeps at least one owner. Pure: the caller passes the company's memberships as they stand.
import type { Role } from './roles.ts';

export type MemberRefusal = 'owner_required' | 'last_owner' | 'not_found' | null;

/**
 * Whether `actorRole` (null: an API key) may move member `userId` from its role to `next` (null:
 * remove it). Answers the refusal, or null when allowed.
 */
export function memberChangeRefusal(
  members: readonly { userId: number; role: Role }[],
  actorRole: Role | null,
  userId: number,
  next: Role | null,
): MemberRefusal {
  const target = members.find((m) => m.userId === userId);
  if (!target) return 'not_found';
  const touchesOwner = target.role === 'owner' || next === 'owner';
  if (touchesOwner && actorRole !== 'owner') return 'owner_required';
  const owners = members.filter((m) => m.role === 'owner').length;
  if (target.role === 'owner' && next !== 'owner' && owners <= 1) return 'last_owner';
  return null;
}
