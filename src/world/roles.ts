/** Zulip's role values; lower is more privileged. */
export const ROLE = {
  OWNER: 100,
  ADMINISTRATOR: 200,
  MODERATOR: 300,
  MEMBER: 400,
  GUEST: 600,
} as const;

export type Role = (typeof ROLE)[keyof typeof ROLE];

export const ALL_ROLES: readonly Role[] = [100, 200, 300, 400, 600];

export const isRole = (value: number): value is Role => (ALL_ROLES as number[]).includes(value);

/** Names the CLI accepts for --role. */
export const ROLE_BY_NAME: Readonly<Record<string, Role>> = {
  owner: ROLE.OWNER,
  admin: ROLE.ADMINISTRATOR,
  moderator: ROLE.MODERATOR,
  member: ROLE.MEMBER,
  guest: ROLE.GUEST,
};

export const roleName = (role: number): string =>
  Object.entries(ROLE_BY_NAME).find(([, value]) => value === role)?.[0] ?? String(role);

export const isAdminRole = (role: number) => role <= ROLE.ADMINISTRATOR;
export const isOwnerRole = (role: number) => role === ROLE.OWNER;
export const isModeratorOrAbove = (role: number) => role <= ROLE.MODERATOR;
export const isGuestRole = (role: number) => role === ROLE.GUEST;
