import type { StateContext } from "./state-context.js";
import { userHasPermission } from "../permissions/group-settings.js";
import { isAdminRole, isGuestRole, isModeratorOrAbove, isOwnerRole } from "../world/roles.js";
import { REALM_GROUP_SETTINGS } from "../permissions/setting-registry.js";
import { presentRealmState } from "../presenters/realm.js";
import { avatarUrl, presentUser } from "../presenters/users.js";
import { presentUserGroups } from "../presenters/user-groups.js";
import { hasCapability } from "../wire/events.js";
import { realmUsersJson } from "./realm-users-json.js";

export function fetchRealmState(ctx: StateContext): Promise<Record<string, unknown>> {
  return Promise.resolve(
    presentRealmState(ctx.app.config, ctx.realm, ctx.app.config.heartbeat_interval_secs + 30),
  );
}

/**
 * The `realm_user` fetch type: everyone in the realm (humans with their custom profile
 * field values), plus the caller's own summary.
 */
export function fetchRealmUserState(ctx: StateContext): Promise<Record<string, unknown>> {
  const { user, realm, options } = ctx;
  // Encoded once per snapshot and viewer class, shared by registers (realm-users-json.ts);
  // the profile values are the user-state cache's, captured with the snapshot.
  const people = realmUsersJson(realm, user, options.clientGravatar, ctx.profiles);
  const realmRow = realm.realm;
  const may = (setting: keyof typeof REALM_GROUP_SETTINGS) =>
    userHasPermission(realm, user, realmRow[`${setting}_id`] as number | null, REALM_GROUP_SETTINGS[setting]);
  const canCreatePublic = may("can_create_public_channel_group");
  const canCreatePrivate = may("can_create_private_channel_group");
  return Promise.resolve({
    realm_users: people.active,
    realm_non_active_users: people.inactive,
    // Server bots (Notification Bot) are listed apart from the realm's people, as Zulip does.
    cross_realm_bots: realm.systemBots.map((bot) => ({
      ...presentUser(user, bot, { clientGravatar: options.clientGravatar }),
      is_system_bot: true,
    })),
    user_id: user.id,
    email: user.email,
    delivery_email: user.delivery_email,
    full_name: user.full_name,
    avatar_source: user.avatar_source,
    avatar_url: avatarUrl(user, false),
    avatar_url_medium: avatarUrl(user, false, true),
    is_admin: isAdminRole(user.role),
    is_owner: isOwnerRole(user.role),
    is_moderator: isModeratorOrAbove(user.role) && !isAdminRole(user.role),
    is_guest: isGuestRole(user.role),
    can_create_streams: canCreatePublic || canCreatePrivate,
    can_create_public_streams: canCreatePublic,
    can_create_private_streams: canCreatePrivate,
    can_create_web_public_streams: may("can_create_web_public_channel_group"),
    can_subscribe_other_users: may("can_add_subscribers_group"),
    can_invite_others_to_realm: may("can_invite_users_group"),
  });
}

/** /register's `realm_user_groups`: deactivated groups only for clients that handle them. */
export function fetchRealmUserGroupsState(ctx: StateContext): Promise<Record<string, unknown>> {
  const includeDeactivated = hasCapability(ctx.options, "include_deactivated_groups");
  return Promise.resolve({ realm_user_groups: presentUserGroups(ctx.realm, { includeDeactivated }) });
}
