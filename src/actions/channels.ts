import type { App } from "../app.js";
import { RECIPIENT_TYPE, type ChannelRow, type TopicsPolicy } from "../db/channel-rows.js";
import { insertReturningId } from "../db/insert.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { JsonableError, badRequest, insufficientPermission, mustBeOwner } from "../errors.js";
import { channelViewerIds, type ChannelWorld } from "../permissions/channel-access.js";
import { channelNameKey, type ChannelSnapshot } from "../world/channels.js";
import type { GroupNode, RealmSnapshot } from "../world/realm.js";
import { isAdminRole, isGuestRole, isOwnerRole } from "../world/roles.js";
import { userHasRealmPermission } from "../permissions/setting-permissions.js";
import { CHANNEL_GROUP_SETTING_NAMES } from "../permissions/setting-registry.js";
import { presentChannel } from "../presenters/channels.js";
import { defaultStreamsEvent, streamEvents, subscriptionEvents } from "../presenters/events/channels.js";
import { renderMarkdown } from "../render/markdown.js";
import {
  effectiveHistoryPublic,
  realmWithGroups,
  storeChannelGroupSetting,
  validateCreationGroupSettings,
  type ChannelGroupParams,
  type ChannelGroupValues,
} from "./channel-groups.js";

/** Clients see channels' and subscriptions' changes once committed: drop the cached ones. */
export const invalidateChannels = (app: App, tx: Tx, realmId: number) =>
  tx.afterCommit(() => app.channels.invalidate(realmId));

export const invalidFolderId = () => badRequest("Invalid channel folder ID");
export const channelAlreadyExists = (name: string) =>
  new JsonableError(`Channel '${name}' already exists`, "CHANNEL_ALREADY_EXISTS", 409);

/** Web-public channels need the server setting and the organization's spectator access. */
export const webPublicChannelsEnabled = (app: App, realm: RealmSnapshot) =>
  app.config.web_public_streams_enabled && bool(realm.realm.enable_spectator_access);

/** The organization lets the user choose a topics policy other than inherit. */
export function requireTopicsPolicyPermission(
  realm: RealmSnapshot,
  user: UserRow,
  policy: TopicsPolicy | undefined,
) {
  if (policy === undefined || policy === "inherit") return;
  if (!userHasRealmPermission(realm, user, "can_set_topics_policy_group")) throw insufficientPermission();
}

export function validateFolderId(channels: ChannelSnapshot, folderId: number): void {
  if (!channels.folders.has(folderId)) throw invalidFolderId();
}

/** Settings a new channel is created with (creation parameters of subscribe and create). */
export interface ChannelCreationParams {
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  /** Absent: the organization's default; null also; -1 unlimited. */
  message_retention_days?: number | null;
  topics_policy?: TopicsPolicy;
  folder_id?: number | null;
  groups: ChannelGroupParams;
}

/** Creation parameters after validation: everything a row needs. */
export interface PreparedCreation {
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers: boolean;
  message_retention_days: number | null;
  topics_policy: TopicsPolicy;
  folder_id: number | null;
  groups: ChannelGroupValues;
}

/**
 * Zulip's access_requested_group_permissions_for_streams and
 * check_channel_creation_permissions, in that order.
 */
export function prepareChannelCreation(
  app: App,
  world: ChannelWorld,
  creator: UserRow,
  params: ChannelCreationParams,
): PreparedCreation {
  const realm = world.realm;
  const history = effectiveHistoryPublic(params.invite_only, params.history_public_to_subscribers);
  const groups = validateCreationGroupSettings(realm, creator, params.groups, history);
  const may = (setting: Parameters<typeof userHasRealmPermission>[2]) =>
    userHasRealmPermission(realm, creator, setting);
  if (params.invite_only && !may("can_create_private_channel_group")) throw insufficientPermission();
  if (!params.invite_only && !may("can_create_public_channel_group")) throw insufficientPermission();
  if (params.is_default_stream && !isAdminRole(creator.role)) throw insufficientPermission();
  if (params.invite_only && params.is_default_stream)
    throw badRequest("A default channel cannot be private.");
  if (params.is_web_public) {
    // Zulip would store this contradiction; a web-public channel is public by definition.
    if (params.invite_only) throw badRequest("Invalid parameters");
    if (!webPublicChannelsEnabled(app, realm)) throw badRequest("Web-public channels are not enabled.");
    if (!may("can_create_web_public_channel_group")) throw insufficientPermission();
  }
  if (params.message_retention_days !== undefined && params.message_retention_days !== null) {
    if (!isOwnerRole(creator.role)) throw mustBeOwner();
  }
  return {
    invite_only: params.invite_only,
    is_web_public: params.is_web_public,
    is_default_stream: params.is_default_stream,
    history_public_to_subscribers: history,
    message_retention_days: params.message_retention_days ?? null,
    topics_policy: params.topics_policy ?? "inherit",
    folder_id: params.folder_id ?? null,
    groups,
  };
}

export interface CreatedChannel {
  channel: ChannelRow;
  /** The realm including the channel's new anonymous groups. */
  realm: RealmSnapshot;
}

/**
 * Inserts a channel (with its recipient and permission groups) and tells those who may
 * see it. Names are validated and free (the caller's job); nobody is subscribed yet.
 */
export async function doCreateChannel(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  creator: UserRow | null,
  input: { name: string; description: string; settings: PreparedCreation },
): Promise<CreatedChannel> {
  const { settings } = input;
  const realmId = world.realm.id;
  const nodes: GroupNode[] = [];
  const groupColumns: Record<string, number> = {};
  for (const setting of CHANNEL_GROUP_SETTING_NAMES) {
    const stored = await storeChannelGroupSetting(tx, realmId, settings.groups[setting]);
    groupColumns[`${setting}_id`] = stored.groupId;
    if (stored.node) nodes.push(stored.node);
  }
  const id = await insertReturningId(tx.knex, "streams", {
    realm_id: realmId,
    name: input.name,
    name_key: channelNameKey(input.name),
    description: input.description,
    rendered_description: renderMarkdown(input.description),
    date_created: tx.now,
    creator_id: creator?.id ?? null,
    invite_only: settings.invite_only,
    is_web_public: settings.is_web_public,
    history_public_to_subscribers: settings.history_public_to_subscribers,
    message_retention_days: settings.message_retention_days,
    folder_id: settings.folder_id,
    topics_policy: settings.topics_policy,
    ...groupColumns,
  });
  const recipientId = await insertReturningId(tx.knex, "recipients", {
    type: RECIPIENT_TYPE.STREAM,
    type_id: id,
  });
  await tx.knex("streams").where({ id }).update({ recipient_id: recipientId });
  const channel = (await tx.knex<ChannelRow>("streams").where({ id }).first())!;
  invalidateChannels(app, tx, realmId);
  if (nodes.length > 0) tx.afterCommit(() => app.realms.invalidate(realmId));

  const realm = realmWithGroups(world.realm, nodes);
  const dict = presentChannel(realm, world.channels, channel, { subscriberIds: [] });
  tx.sendEventOnCommit(realmId, streamEvents.create([dict]), channelViewerIds(realm, channel, []));
  return { channel, realm };
}

/** Recipients of default-channel events: active members (guests see no default channels). */
function defaultChannelRecipients(realm: RealmSnapshot): number[] {
  return [...realm.users].filter((u) => bool(u.is_active) && !isGuestRole(u.role)).map((u) => u.id);
}

/** Sets the realm's default channels to `ids` and tells the members. */
function sendDefaultChannels(tx: Tx, realm: RealmSnapshot, ids: Iterable<number>): void {
  const defaults = [...new Set(ids)].sort((a, b) => a - b);
  tx.sendEventOnCommit(realm.id, defaultStreamsEvent(defaults), defaultChannelRecipients(realm));
}

/** Makes channels default for new users (no-op for those that already are). */
export async function doAddDefaultChannels(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  channels: readonly ChannelRow[],
): Promise<void> {
  const current = world.channels.defaultChannelIds;
  const added = channels.filter((c) => !current.has(c.id));
  if (added.length === 0) return;
  const realmId = world.realm.id;
  await tx.knex("default_streams").insert(added.map((c) => ({ realm_id: realmId, stream_id: c.id })));
  invalidateChannels(app, tx, realmId);
  sendDefaultChannels(tx, world.realm, [...current, ...added.map((c) => c.id)]);
}

/** Removes a channel from the default channels (always tells the members, as Zulip). */
export async function doRemoveDefaultChannel(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  channel: ChannelRow,
): Promise<void> {
  const realmId = world.realm.id;
  await tx.knex("default_streams").where({ realm_id: realmId, stream_id: channel.id }).delete();
  invalidateChannels(app, tx, realmId);
  sendDefaultChannels(
    tx,
    world.realm,
    [...world.channels.defaultChannelIds].filter((id) => id !== channel.id),
  );
}

/**
 * Call at the end of a transaction that changed roles or group memberships: compares
 * the realm as it was (`before`) with what the transaction wrote, and sends the channel
 * visibility changes that follow.
 */
export async function notifyChannelAccessChanges(app: App, tx: Tx, before: RealmSnapshot): Promise<void> {
  const realmId = before.realm.id;
  const after = await app.realms.get(tx.knex, realmId);
  const channels = await app.channels.get(tx.knex, realmId);
  sendChannelAccessChanges(tx, channels, before, after);
}

/**
 * After roles or group memberships change (the realm `before` and `after`), tells users
 * who gained sight of channels about them (stream create, then their subscribers) and
 * users who lost it that they are gone (stream delete). For the user and group actions.
 */
export function sendChannelAccessChanges(
  tx: Tx,
  channels: ChannelSnapshot,
  before: RealmSnapshot,
  after: RealmSnapshot,
): void {
  const realmId = after.realm.id;
  const lostByUser = new Map<number, number[]>();
  for (const channel of channels.channels.values()) {
    const subscribers = channels.subscriberIds(channel.id);
    const was = channelViewerIds(before, channel, subscribers);
    const is = channelViewerIds(after, channel, subscribers);
    const gained = [...is].filter((id) => !was.has(id));
    for (const id of was)
      if (!is.has(id)) (lostByUser.get(id) ?? lostByUser.set(id, []).get(id)!).push(channel.id);
    if (gained.length === 0) continue;
    const dict = presentChannel(after, channels, channel);
    tx.sendEventOnCommit(realmId, streamEvents.create([dict]), gained);
    const active = channels.activeSubscriberIds(after, channel.id);
    if (active.length > 0) {
      tx.sendEventOnCommit(realmId, subscriptionEvents.peers("peer_add", [channel.id], [...active]), gained);
    }
  }
  for (const [userId, ids] of lostByUser) {
    tx.sendEventOnCommit(realmId, streamEvents.delete(ids), [userId]);
  }
}
