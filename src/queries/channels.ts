import type { ChannelRow } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import {
  canAccessChannelContent,
  canAccessChannelMetadata,
  isArchived,
  isPrivate,
  isWebPublic,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { isGuestRole } from "../world/roles.js";

/** The sources GET /streams combines: its include_* parameters. */
export interface StreamsQuery {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all: boolean;
  include_owner_subscribed: boolean;
  include_can_access_content: boolean;
}

/** Zulip's get_streams_for_user: the union of the requested sources. */
export function channelsForUser(world: ChannelWorld, user: UserRow, q: StreamsQuery): ChannelRow[] {
  const candidates = [...world.channels.channels.values()].filter(
    (c) => !q.exclude_archived || !isArchived(c),
  );
  if (q.include_all) return candidates.filter((c) => canAccessChannelMetadata(world, user, c));
  const owner = q.include_owner_subscribed && bool(user.is_bot) ? user.bot_owner_id : null;
  const includePublic = q.include_public && !isGuestRole(user.role);
  return candidates.filter((c) => {
    if (owner !== null && world.channels.isSubscribed(owner, c.id)) return true;
    if (q.include_can_access_content) return canAccessChannelContent(world, user, c);
    if (q.include_subscribed && world.channels.isSubscribed(user.id, c.id)) return true;
    if (includePublic && !isPrivate(c)) return true;
    return q.include_web_public && isWebPublic(c) && !isArchived(c);
  });
}
