import { bool, type UserRow } from "../db/rows.js";
import { ROLE } from "../world/roles.js";

/** Email visibility values (users.email_address_visibility). */
export const EMAIL_VISIBILITY = {
  EVERYONE: 1,
  MEMBERS: 2,
  ADMINS: 3,
  NOBODY: 4,
  MODERATORS: 5,
} as const;

/** Which visibility values a role may see through, as Zulip's table. */
const VISIBLE_TO_ROLE: Readonly<Record<number, readonly number[]>> = {
  [ROLE.OWNER]: [1, 2, 3, 5],
  [ROLE.ADMINISTRATOR]: [1, 2, 3, 5],
  [ROLE.MODERATOR]: [1, 2, 5],
  [ROLE.MEMBER]: [1, 2],
  [ROLE.GUEST]: [1],
};

/** May `viewer` see `target`'s real email? Bots' addresses are never hidden. */
export function canSeeDeliveryEmail(viewer: UserRow | null, target: UserRow): boolean {
  if (bool(target.is_bot)) return true;
  if (!viewer) return target.email_address_visibility === EMAIL_VISIBILITY.EVERYONE;
  if (viewer.id === target.id) return true;
  return VISIBLE_TO_ROLE[viewer.role]?.includes(target.email_address_visibility) ?? false;
}
