import type { UserRow } from "../db/rows.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isAdminRole, isGuestRole } from "../world/roles.js";
import { userHasRealmPermission } from "./setting-permissions.js";

/** Zulip's UserProfile.can_add_custom_emoji: never a guest; else can_add_custom_emoji_group. */
export const mayAddCustomEmoji = (realm: RealmSnapshot, user: UserRow): boolean =>
  !isGuestRole(user.role) && userHasRealmPermission(realm, user, "can_add_custom_emoji_group");

/** Zulip's check_remove_custom_emoji: administrators, and the emoji's author. */
export const mayRemoveCustomEmoji = (user: UserRow, authorId: number | null): boolean =>
  isAdminRole(user.role) || (authorId !== null && authorId === user.id);
