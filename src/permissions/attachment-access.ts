import type { UserRow } from "../db/rows.js";
import { isGuestRole } from "../world/roles.js";
import { hasContentAccessViaGroups, isPrivate, isWebPublic, type ChannelWorld } from "./channel-access.js";
import { bool } from "../db/rows.js";

/**
 * Who may read an uploaded file: Zulip's validate_attachment_request, written once and
 * used by every path that serves or shares a file (downloads, thumbnails, temporary
 * URLs, and claiming a file in a sent or edited message).
 *
 * 1. Its owner (who uploaded it).
 * 2. Any non-guest of its organization, once a message in a public (not invite-only)
 *    channel links it.
 * 3. Anyone who received a direct message linking it.
 * 4. Anyone who received a channel message linking it and is still subscribed there.
 * 5. Subscribers of a channel with shared history where a message links it.
 * 6. Members of a channel's content-access groups (can_subscribe_group,
 *    can_add_subscribers_group) where a message links it, if the channel's history is
 *    shared, or if they received that message.
 *
 * Everything is evaluated from the messages that link the file now, so moving a message
 * into a private channel changes who may read the file at once. Spectators (no login)
 * may read files linked from a web-public channel (spectatorMayAccess).
 */

/** A message linking the file, as the rule needs it. */
export interface LinkingMessage {
  /** null for a direct message. */
  readonly streamId: number | null;
  /** The user has a user_messages row for it. */
  readonly received: boolean;
}

export interface AttachmentFacts {
  readonly realmId: number;
  readonly ownerId: number;
  readonly messages: readonly LinkingMessage[];
}

export function userMayAccessAttachment(world: ChannelWorld, user: UserRow, file: AttachmentFacts): boolean {
  if (user.id === file.ownerId) return true;
  if (user.realm_id !== file.realmId) return false;
  const channelOf = (id: number) => world.channels.channel(id);

  const realmPublic = file.messages.some((m) => {
    const channel = m.streamId === null ? undefined : channelOf(m.streamId);
    return channel !== undefined && !isPrivate(channel);
  });
  if (realmPublic && !isGuestRole(user.role)) return true;

  const receivedChannelIds = new Set<number>();
  for (const message of file.messages) {
    if (!message.received) continue;
    if (message.streamId === null) return true;
    receivedChannelIds.add(message.streamId);
  }
  const subscribed = (id: number) => world.channels.isSubscribed(user.id, id);
  for (const id of receivedChannelIds) if (subscribed(id)) return true;

  const channelIds = new Set(file.messages.flatMap((m) => (m.streamId === null ? [] : [m.streamId])));
  const channels = [...channelIds].flatMap((id) => channelOf(id) ?? []);
  const sharedHistory = (channel: (typeof channels)[number]) => bool(channel.history_public_to_subscribers);
  for (const channel of channels) {
    if (subscribed(channel.id) && sharedHistory(channel)) return true;
  }
  for (const channel of channels) {
    if (!hasContentAccessViaGroups(world.realm, user, channel)) continue;
    if (sharedHistory(channel) || receivedChannelIds.has(channel.id)) return true;
  }
  return false;
}

/**
 * Zulip's validate_attachment_request_for_spectator_access: a logged-out visitor may read
 * a file linked from a web-public channel of an organization open to spectators.
 */
export function spectatorMayAccessAttachment(
  world: ChannelWorld,
  file: AttachmentFacts,
  webPublicStreamsEnabled: boolean,
): boolean {
  if (!webPublicStreamsEnabled || !bool(world.realm.realm.enable_spectator_access)) return false;
  if (world.realm.realm.id !== file.realmId) return false;
  return file.messages.some((m) => {
    const channel = m.streamId === null ? undefined : world.channels.channel(m.streamId);
    return channel !== undefined && !isPrivate(channel) && isWebPublic(channel);
  });
}
