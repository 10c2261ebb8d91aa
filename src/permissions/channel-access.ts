import type { ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { isAdminRole, isGuestRole } from "../world/roles.js";
import { userHasChannelPermission, userHasRealmPermission } from "./setting-permissions.js";
import { CHANNEL_GROUP_SETTINGS } from "./setting-registry.js";
import type { ChannelSnapshot } from "../world/channels.js";
import type { RealmSnapshot } from "../world/realm.js";

/**
 * Who may see and do what with a channel: Zulip's access_stream_* rules, in one place.
 *
 * - Metadata access (name, description, settings, existence): web-public channels,
 *   subscribed channels, public channels for non-guests, every channel for realm
 *   administrators, and channels whose can_administer_channel_group,
 *   can_add_subscribers_group or can_subscribe_group holds the user.
 * - Content access (messages, subscribing oneself): web-public, subscribed, public for
 *   non-guests, or membership of can_subscribe_group / can_add_subscribers_group.
 *   Administration rights and the administrator role do not grant it.
 * - Guests see only web-public channels and channels they are subscribed to.
 * - History access (messages never received): canAccessChannelHistory.
 *
 * A missing channel and a forbidden one give the same error, so IDs cannot be probed.
 * Every endpoint and every event-recipient computation about channels uses this module.
 */

/** What the rules read: the realm (users, groups) and its channels. */
export interface ChannelWorld {
  readonly realm: RealmSnapshot;
  readonly channels: ChannelSnapshot;
}

export const invalidChannelId = () => badRequest("Invalid channel ID");
export const invalidChannelName = (name: string) => badRequest(`Invalid channel name '${name}'`);

export const isWebPublic = (channel: ChannelRow) => bool(channel.is_web_public);
export const isPrivate = (channel: ChannelRow) => bool(channel.invite_only);
export const isArchived = (channel: ChannelRow) => bool(channel.is_archived);

/** Settings whose members see a channel's metadata (Zulip's ..._granting_metadata_access). */
const METADATA_SETTINGS = [
  "can_administer_channel_group",
  "can_add_subscribers_group",
  "can_subscribe_group",
] as const;
/** Settings whose members may read a channel's content. */
const CONTENT_SETTINGS = ["can_add_subscribers_group", "can_subscribe_group"] as const;

export function hasMetadataAccessViaGroups(
  realm: RealmSnapshot,
  user: UserRow,
  channel: ChannelRow,
): boolean {
  return METADATA_SETTINGS.some((s) => userHasChannelPermission(realm, user, channel, s));
}

export function hasContentAccessViaGroups(realm: RealmSnapshot, user: UserRow, channel: ChannelRow): boolean {
  return CONTENT_SETTINGS.some((s) => userHasChannelPermission(realm, user, channel, s));
}

export function canAccessChannelMetadata(world: ChannelWorld, user: UserRow, channel: ChannelRow): boolean {
  if (isWebPublic(channel)) return true;
  if (world.channels.isSubscribed(user.id, channel.id)) return true;
  if (isGuestRole(user.role)) return false;
  if (!isPrivate(channel)) return true;
  if (isAdminRole(user.role)) return true;
  return hasMetadataAccessViaGroups(world.realm, user, channel);
}

export function canAccessChannelContent(world: ChannelWorld, user: UserRow, channel: ChannelRow): boolean {
  if (isWebPublic(channel)) return true;
  if (world.channels.isSubscribed(user.id, channel.id)) return true;
  if (isGuestRole(user.role)) return false;
  if (!isPrivate(channel)) return true;
  return hasContentAccessViaGroups(world.realm, user, channel);
}

/**
 * Zulip's can_access_stream_history: may the user read the channel's messages it never
 * received? Web-public channels: everyone; public channels: every non-guest; channels
 * whose history is shared with subscribers: those with content access, unless archived;
 * protected history: nobody. The caller has checked the channel is visible at all.
 */
export function canAccessChannelHistory(world: ChannelWorld, user: UserRow, channel: ChannelRow): boolean {
  return historyAccess(user, channel, () => canAccessChannelContent(world, user, channel));
}

/**
 * canAccessChannelHistory for a user known to be subscribed (so with content access):
 * a new user's channels, subscribed in a transaction the channel snapshot does not see.
 */
export function canSubscriberAccessChannelHistory(user: UserRow, channel: ChannelRow): boolean {
  return historyAccess(user, channel, () => true);
}

function historyAccess(user: UserRow, channel: ChannelRow, hasContentAccess: () => boolean): boolean {
  if (channel.realm_id !== user.realm_id) return false;
  if (isWebPublic(channel)) return true;
  if (!isPrivate(channel) && !isGuestRole(user.role)) return true;
  if (!bool(channel.history_public_to_subscribers) || isArchived(channel)) return false;
  return hasContentAccess();
}

export interface AccessOptions {
  /** Content access (default) or metadata access only. */
  requireContentAccess?: boolean;
  /** Archived channels count as missing unless allowed. */
  allowArchived?: boolean;
}

function mayAccess(world: ChannelWorld, user: UserRow, channel: ChannelRow, options: AccessOptions) {
  if (channel.realm_id !== user.realm_id) return false;
  if (!options.allowArchived && isArchived(channel)) return false;
  return options.requireContentAccess === false
    ? canAccessChannelMetadata(world, user, channel)
    : canAccessChannelContent(world, user, channel);
}

/** Zulip's access_stream_by_id: the channel, or "Invalid channel ID". */
export function accessChannelById(
  world: ChannelWorld,
  user: UserRow,
  channelId: number,
  options: AccessOptions = {},
): ChannelRow {
  const channel = world.channels.channel(channelId);
  if (!channel || !mayAccess(world, user, channel, options)) throw invalidChannelId();
  return channel;
}

/** Zulip's access_stream_by_name: the channel, or "Invalid channel name '…'". */
export function accessChannelByName(
  world: ChannelWorld,
  user: UserRow,
  name: string,
  options: AccessOptions = {},
): ChannelRow {
  const channel = world.channels.channelByName(name);
  if (!channel || !mayAccess(world, user, channel, options)) throw invalidChannelName(name);
  return channel;
}

/**
 * Administering a channel: realm administrators always; otherwise members of its
 * can_administer_channel_group (never guests). The caller checks visibility.
 */
export function canAdministerChannel(realm: RealmSnapshot, user: UserRow, channel: ChannelRow): boolean {
  if (isAdminRole(user.role)) return true;
  return userHasChannelPermission(realm, user, channel, "can_administer_channel_group");
}

/**
 * The channel for an update or archive request (archived ones included). Those who
 * may read it but not administer it learn so; for everyone else it does not exist.
 */
export function accessChannelForAdministration(
  world: ChannelWorld,
  user: UserRow,
  channelId: number,
): ChannelRow {
  const channel = world.channels.channel(channelId);
  if (!channel || channel.realm_id !== user.realm_id) throw invalidChannelId();
  if (canAdministerChannel(world.realm, user, channel)) return channel;
  if (canAccessChannelContent(world, user, channel)) {
    throw badRequest("You do not have permission to administer this channel.");
  }
  throw invalidChannelId();
}

/**
 * Why the user may not see the channel's subscribers, or null if they may (Zulip's
 * validate_user_access_to_subscribers). The caller has checked metadata access.
 */
export function subscriberAccessError(
  world: ChannelWorld,
  user: UserRow,
  channel: ChannelRow,
): string | null {
  if (isWebPublic(channel)) return null;
  const subscribed = world.channels.isSubscribed(user.id, channel.id);
  if (isGuestRole(user.role)) {
    return subscribed ? null : "Subscriber data is not available for this channel";
  }
  if (!isPrivate(channel)) return null;
  if (subscribed || isAdminRole(user.role)) return null;
  if (hasMetadataAccessViaGroups(world.realm, user, channel)) return null;
  return "Unable to retrieve subscribers for private channel";
}

export const canSeeSubscribers = (world: ChannelWorld, user: UserRow, channel: ChannelRow) =>
  subscriberAccessError(world, user, channel) === null;

/**
 * May the user subscribe other users to a channel it has content access to? The
 * organization's can_add_subscribers_group covers every such channel; administrators,
 * channel administrators and the channel's can_add_subscribers_group may too.
 */
export function canAddSubscribers(realm: RealmSnapshot, user: UserRow, channel: ChannelRow): boolean {
  if (isGuestRole(user.role)) return false;
  if (userHasRealmPermission(realm, user, "can_add_subscribers_group")) return true;
  if (isAdminRole(user.role)) return true;
  if (userHasChannelPermission(realm, user, channel, "can_administer_channel_group")) return true;
  return userHasChannelPermission(realm, user, channel, "can_add_subscribers_group");
}

/**
 * May the user unsubscribe others from all these channels (Zulip's
 * bulk_can_remove_subscribers_from_streams)? Administrators may always; channel
 * administrators of every channel may; otherwise the user needs metadata access to
 * every channel and membership of every channel's can_remove_subscribers_group.
 */
export function canRemoveSubscribers(
  world: ChannelWorld,
  user: UserRow,
  channels: readonly ChannelRow[],
): boolean {
  if (isAdminRole(user.role)) return true;
  if (isGuestRole(user.role)) return false;
  const realm = world.realm;
  if (channels.every((c) => userHasChannelPermission(realm, user, c, "can_administer_channel_group"))) {
    return true;
  }
  if (!channels.every((c) => canAccessChannelMetadata(world, user, c))) return false;
  return channels.every((c) => userHasChannelPermission(realm, user, c, "can_remove_subscribers_group"));
}

/**
 * Everyone who may see the channel exists (and see its subscribers): the recipients
 * of its stream and peer events. Active users only. `subscriberIds` are the channel's
 * subscribers as of the event (the caller's view after its change).
 */
export function channelViewerIds(
  realm: RealmSnapshot,
  channel: ChannelRow,
  subscriberIds: Iterable<number>,
): Set<number> {
  const viewers = new Set<number>();
  const isActive = (id: number) => bool(realm.user(id)?.is_active);
  for (const id of subscriberIds) if (isActive(id)) viewers.add(id);
  if (isWebPublic(channel)) {
    for (const user of realm.users) if (bool(user.is_active)) viewers.add(user.id);
    return viewers;
  }
  if (!isPrivate(channel)) {
    for (const user of realm.users) {
      if (bool(user.is_active) && !isGuestRole(user.role)) viewers.add(user.id);
    }
    return viewers;
  }
  for (const user of realm.users) {
    if (bool(user.is_active) && isAdminRole(user.role)) viewers.add(user.id);
  }
  for (const setting of METADATA_SETTINGS) {
    for (const id of realm.recursiveMembers(channel[`${setting}_id`])) {
      const user = realm.user(id);
      if (!user || viewers.has(id)) continue;
      const config = CHANNEL_GROUP_SETTINGS[setting];
      if (bool(user.is_active) && (config.allowEveryoneGroup || !isGuestRole(user.role))) viewers.add(id);
    }
  }
  return viewers;
}

/** May the user see the channel, given its subscribers as of an event? */
export function isChannelViewer(
  realm: RealmSnapshot,
  user: UserRow,
  channel: ChannelRow,
  subscriberIds: ReadonlySet<number>,
): boolean {
  if (!bool(user.is_active)) return false;
  if (isWebPublic(channel) || subscriberIds.has(user.id)) return true;
  if (isGuestRole(user.role)) return false;
  if (!isPrivate(channel) || isAdminRole(user.role)) return true;
  return hasMetadataAccessViaGroups(realm, user, channel);
}

/**
 * Zulip's access_stream_for_send_message: may the user post in the channel? First
 * can_send_message_group (a bot may use its owner's permission), then: archived
 * channels refuse everyone; web-public channels take anyone; public channels take
 * non-guests; otherwise subscribers, users with can_forge_sender, bots whose owner is
 * subscribed, and (channels with shared history) non-guests whose groups grant content
 * access. System bots (Notification Bot) may post anywhere. Unlike reads, the refusal
 * names the channel, as Zulip's does.
 */
export function requireCanPostToChannel(world: ChannelWorld, sender: UserRow, channel: ChannelRow): void {
  if (bool(sender.is_system_bot)) return;
  const { realm, channels } = world;
  const owner =
    bool(sender.is_bot) && sender.bot_owner_id !== null ? realm.user(sender.bot_owner_id) : undefined;
  const maySend = (user: UserRow) => userHasChannelPermission(realm, user, channel, "can_send_message_group");
  if (!maySend(sender) && !(owner && maySend(owner))) {
    throw badRequest("You do not have permission to post in this channel.");
  }
  const refused = () => badRequest(`Not authorized to send to channel '${channel.name}'`);
  if (isArchived(channel)) throw refused();
  if (isWebPublic(channel)) return;
  if (!isPrivate(channel) && !isGuestRole(sender.role)) return;
  if (channels.isSubscribed(sender.id, channel.id)) return;
  if (bool(sender.can_forge_sender)) return;
  if (owner && channels.isSubscribed(owner.id, channel.id)) return;
  if (
    bool(channel.history_public_to_subscribers) &&
    !isGuestRole(sender.role) &&
    hasContentAccessViaGroups(realm, sender, channel)
  ) {
    return;
  }
  throw refused();
}
