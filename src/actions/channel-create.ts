import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { insufficientPermission, notAllowedForGuests } from "../errors.js";
import { canAddSubscribers, isArchived } from "../permissions/channel-access.js";
import { resolvePrincipals } from "../lib/access-users.js";
import { validateChannelName, normalizeChannelDescription } from "../lib/channel-validation.js";
import { isGuestRole } from "../world/roles.js";
import {
  announcementMessage,
  creationNotice,
  NEW_CHANNELS_TOPIC,
  sendBotChannelMessage,
  sendChannelNotice,
} from "./channel-notices.js";
import {
  channelAlreadyExists,
  validateFolderId,
  requireTopicsPolicyPermission,
  doAddDefaultChannels,
  doCreateChannel,
  prepareChannelCreation,
  type ChannelCreationParams,
} from "./channels.js";
import { doAddSubscriptions } from "./subscriptions.js";
import { loadWorld } from "../cache/world.js";

export interface CreateChannelRequest {
  name: string;
  description: string;
  subscribers: readonly number[];
  announce: boolean;
  creation: ChannelCreationParams;
}

/**
 * POST /channels/create: creates one channel with the given subscribers. Unlike
 * subscribe, an existing name is an error (409 CHANNEL_ALREADY_EXISTS).
 */
export async function checkCreateChannel(
  app: App,
  actor: UserRow,
  req: CreateChannelRequest,
): Promise<number> {
  return app.db.transaction((tx) => doCreateChannelRequest(app, tx, actor, req));
}

/** checkCreateChannel inside a transaction the caller holds (`chatd init` creates #general so). */
export async function doCreateChannelRequest(
  app: App,
  tx: Tx,
  actor: UserRow,
  req: CreateChannelRequest,
): Promise<number> {
  if (isGuestRole(actor.role)) throw notAllowedForGuests();
  const world = await loadWorld(app, tx.knex, actor.realm_id);
  const name = validateChannelName(req.name);
  if (world.channels.channelByName(name)) throw channelAlreadyExists(name);
  if (typeof req.creation.folder_id === "number") validateFolderId(world.channels, req.creation.folder_id);
  requireTopicsPolicyPermission(world.realm, actor, req.creation.topics_policy);
  const settings = prepareChannelCreation(app, world, actor, req.creation);
  const users = resolvePrincipals(app.config, world.realm, actor, req.subscribers);
  const made = await doCreateChannel(app, tx, world, actor, {
    name,
    description: normalizeChannelDescription(req.description),
    settings,
  });
  const after = { ...world, realm: made.realm };
  if (users.some((u) => u.id !== actor.id) && !canAddSubscribers(after.realm, actor, made.channel)) {
    throw insufficientPermission();
  }
  if (settings.is_default_stream) await doAddDefaultChannels(app, tx, after, [made.channel]);
  await doAddSubscriptions(app, tx, after, [made.channel], users);
  const markAsRead = [actor.id];
  const announcementsId = world.realm.realm.new_stream_announcements_stream_id;
  const target = announcementsId === null ? undefined : world.channels.channel(announcementsId);
  if (req.announce && target && !isArchived(target)) {
    await sendBotChannelMessage(
      app,
      tx,
      target,
      NEW_CHANNELS_TOPIC,
      announcementMessage(actor, [made.channel]),
      { markAsRead, realm: after.realm },
    );
  }
  await sendChannelNotice(app, tx, made.channel, creationNotice(actor, made.channel), {
    markAsRead,
    realm: after.realm,
  });
  return made.channel.id;
}
