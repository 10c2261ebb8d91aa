import { ROLE, type Role } from "./roles.js";

export type SystemGroupName =
  | "role:internet"
  | "role:everyone"
  | "role:members"
  | "role:fullmembers"
  | "role:moderators"
  | "role:administrators"
  | "role:owners"
  | "role:nobody";

export interface SystemGroupSpec {
  name: SystemGroupName;
  description: string;
  /** Role whose users are direct members (fullmembers: members past the waiting period). */
  role: Role | null;
  /** The next group up the chain, which contains this one as a subgroup. */
  subgroupOf: SystemGroupName | null;
}

/**
 * Zulip's system groups, most to least privileged. Each holds its own role's users
 * directly and the more privileged group as a subgroup, so membership is recursive:
 * owners ⊂ administrators ⊂ moderators ⊂ fullmembers ⊂ members ⊂ everyone ⊂ internet.
 */
export const SYSTEM_GROUPS: readonly SystemGroupSpec[] = [
  {
    name: "role:owners",
    description: "Owners of this organization",
    role: ROLE.OWNER,
    subgroupOf: "role:administrators",
  },
  {
    name: "role:administrators",
    description: "Administrators of this organization, including owners",
    role: ROLE.ADMINISTRATOR,
    subgroupOf: "role:moderators",
  },
  {
    name: "role:moderators",
    description: "Moderators of this organization, including administrators",
    role: ROLE.MODERATOR,
    subgroupOf: "role:fullmembers",
  },
  {
    name: "role:fullmembers",
    description: "Members of this organization, not including new accounts and guests",
    role: ROLE.MEMBER,
    subgroupOf: "role:members",
  },
  {
    name: "role:members",
    description: "Members of this organization, not including guests",
    role: ROLE.MEMBER,
    subgroupOf: "role:everyone",
  },
  {
    name: "role:everyone",
    description: "Everyone in this organization, including guests",
    role: ROLE.GUEST,
    subgroupOf: "role:internet",
  },
  { name: "role:internet", description: "Everyone on the Internet", role: null, subgroupOf: null },
  { name: "role:nobody", description: "Nobody", role: null, subgroupOf: null },
];

export const isSystemGroupName = (name: string): name is SystemGroupName =>
  SYSTEM_GROUPS.some((g) => g.name === name);

/**
 * The system groups a user of `role` belongs to directly. A member is in role:members
 * and (past the waiting period, which defaults to none) role:fullmembers.
 */
export function directSystemGroupsForRole(role: number, isFullMember = true): SystemGroupName[] {
  return SYSTEM_GROUPS.filter((g) => g.role === role && (g.name !== "role:fullmembers" || isFullMember)).map(
    (g) => g.name,
  );
}

const SECONDS_PER_DAY = 86400;

/**
 * Zulip's is_provisional_member: a member who joined fewer whole days ago than the
 * realm's waiting period is not yet a full member (not in role:fullmembers).
 */
export function isProvisionalMember(dateJoined: number, waitingPeriodDays: number, now: number): boolean {
  return Math.floor((now - dateJoined) / SECONDS_PER_DAY) < waitingPeriodDays;
}
