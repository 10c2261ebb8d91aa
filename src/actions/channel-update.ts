import type { App } from "../app.js";
import type { ChannelRow, TopicsPolicy } from "../db/channel-rows.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import type { StreamUpdateExtra } from "../wire/events.js";
import { badRequest, insufficientPermission, mustBeOwner } from "../errors.js";
import {
  accessChannelForAdministration,
  canAccessChannelContent,
  channelViewerIds,
  isArchived,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { channelNameKey } from "../world/channels.js";
import { validateChannelName, normalizeChannelDescription } from "../lib/channel-validation.js";
import type { GroupNode, RealmSnapshot } from "../world/realm.js";
import {
  expectationMismatch,
  groupSettingEquals,
  normalizeGroupSetting,
  releaseGroupSetting,
  validateGroupSetting,
  type GroupSettingUpdate,
  type NormalizedGroupSetting,
} from "../permissions/group-setting-values.js";
import { groupSettingValueForApi } from "../permissions/group-settings.js";
import { isAdminRole, isOwnerRole } from "../world/roles.js";
import { userHasRealmPermission } from "../permissions/setting-permissions.js";
import {
  CHANNEL_GROUP_SETTINGS,
  CHANNEL_GROUP_SETTING_NAMES,
  type ChannelGroupSettingName,
} from "../permissions/setting-registry.js";
import { streamEvents, subscriptionEvents, type UnarchiveExtra } from "../presenters/events/channels.js";
import { realmUpdateDictEvent } from "../presenters/events/realm.js";
import { presentChannel, presentSubscription, streamPostPolicy } from "../presenters/channels.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { renderMarkdown } from "../render/markdown.js";
import {
  validateCreateTopicGroupForHistory,
  requireDeletePolicyPermission,
  realmWithGroups,
  storeChannelGroupSetting,
} from "./channel-groups.js";
import {
  archiveNotice,
  descriptionNotice,
  permissionNotice,
  permissionPolicy,
  renameNotice,
  sendChannelNotice,
  topicsPolicyNotice,
  unarchiveNotice,
} from "./channel-notices.js";
import {
  channelAlreadyExists,
  validateFolderId,
  requireTopicsPolicyPermission,
  doAddDefaultChannels,
  doRemoveDefaultChannel,
  invalidateChannels,
  webPublicChannelsEnabled,
} from "./channels.js";
import { loadWorld } from "../cache/world.js";

export interface UpdateChannelRequest {
  description?: string;
  new_name?: string;
  is_private?: boolean;
  is_web_public?: boolean;
  history_public_to_subscribers?: boolean;
  is_default_stream?: boolean;
  /** Absent: unchanged; null: the organization's default; -1: unlimited. */
  message_retention_days?: number | null;
  is_archived?: boolean;
  /** Absent: unchanged; null: no folder. */
  folder_id?: number | null;
  topics_policy?: TopicsPolicy;
  groups: Partial<Record<ChannelGroupSettingName, GroupSettingUpdate>>;
}

const contentAccessRequired = () => badRequest("Channel content access is required.");
const invalidParameters = () => badRequest("Invalid parameters");

/** Settings whose change needs content access, not just the right to administer. */
const CONTENT_GUARDED: ReadonlySet<ChannelGroupSettingName> = new Set([
  "can_add_subscribers_group",
  "can_subscribe_group",
]);

/** A property change to announce to those who keep seeing the channel. */
interface PropertyUpdate {
  property: string;
  value: unknown;
  extra?: StreamUpdateExtra;
}

async function channelHasNamedTopics(tx: Tx, channel: ChannelRow): Promise<boolean> {
  const row = await tx
    .knex("messages")
    .where({ stream_id: channel.id })
    .whereNot("topic", "")
    .first<{ id: number } | undefined>("id");
  return row !== undefined;
}

/** A validated update: only what changes (or was asked for, for privacy and defaults). */
export interface ChannelChanges {
  privacy?: { invite_only: boolean; is_web_public: boolean; history_public_to_subscribers: boolean };
  message_retention_days?: number | null;
  topics_policy?: TopicsPolicy;
  description?: string;
  name?: string;
  folder_id?: number | null;
  groups: ReadonlyMap<ChannelGroupSettingName, NormalizedGroupSetting>;
  unarchive: boolean;
  is_default_stream?: boolean;
}

/**
 * PATCH /streams/{stream_id}: validates every requested change (Zulip's order and
 * messages), then applies them all in one transaction. Organization-level properties
 * need the matching organization permission; the rest need the right to administer
 * the channel; privacy and subscription permissions also need content access.
 */
export async function checkUpdateChannel(
  app: App,
  actor: UserRow,
  channelId: number,
  req: UpdateChannelRequest,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const channel = accessChannelForAdministration(world, actor, channelId);
    const changes = await validateChannelUpdate(app, tx, world, actor, channel, req);
    await doUpdateChannel(app, tx, world, actor, channel, changes);
  });
}

async function validateChannelUpdate(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  actor: UserRow,
  channel: ChannelRow,
  req: UpdateChannelRequest,
): Promise<ChannelChanges> {
  const { realm, channels } = world;
  const may = (setting: Parameters<typeof userHasRealmPermission>[2]) =>
    userHasRealmPermission(realm, actor, setting);

  // Proposed privacy.
  const privacyGiven =
    req.is_private !== undefined ||
    req.is_web_public !== undefined ||
    req.history_public_to_subscribers !== undefined;
  const inviteOnly = req.is_private ?? bool(channel.invite_only);
  const webPublic = req.is_web_public ?? bool(channel.is_web_public);
  const historyPublic =
    req.history_public_to_subscribers ??
    (req.is_private !== undefined ? !req.is_private : bool(channel.history_public_to_subscribers));
  if (webPublic && (!historyPublic || inviteOnly)) throw invalidParameters();
  if (!inviteOnly && !historyPublic) throw invalidParameters();
  const willBeDefault = req.is_default_stream ?? channels.defaultChannelIds.has(channel.id);
  if (inviteOnly && willBeDefault) throw badRequest("A default channel cannot be private.");
  if (!inviteOnly && realm.realm.moderation_request_channel_id === channel.id) {
    throw badRequest("A moderation request channel cannot be public.");
  }
  if (privacyGiven && !canAccessChannelContent(world, actor, channel)) throw contentAccessRequired();
  if (req.is_private === true && !may("can_create_private_channel_group")) throw insufficientPermission();
  if (req.is_private === false && !may("can_create_public_channel_group")) throw insufficientPermission();
  if (req.is_web_public === true) {
    if (!webPublicChannelsEnabled(app, realm)) throw badRequest("Web-public channels are not enabled.");
    if (!may("can_create_web_public_channel_group")) throw insufficientPermission();
  }
  if (req.is_default_stream !== undefined && !isAdminRole(actor.role)) {
    throw badRequest("You do not have permission to change default channels.");
  }
  if (req.message_retention_days !== undefined && !isOwnerRole(actor.role)) throw mustBeOwner();
  const unarchive = req.is_archived === false;
  if (unarchive) {
    if (!isArchived(channel)) throw badRequest("Channel is not currently deactivated");
    if (inviteOnly && channels.activeSubscriberIds(realm, channel.id).length === 0) {
      throw badRequest("Channel is private and have no subscribers");
    }
  }
  if (req.topics_policy !== undefined) {
    if (!isAdminRole(actor.role)) requireTopicsPolicyPermission(realm, actor, req.topics_policy);
    if (req.topics_policy === "empty_topic_only" && (await channelHasNamedTopics(tx, channel))) {
      throw badRequest(
        `To enable this configuration, all messages in this channel must be in the ${emptyTopicDisplayName(realm.realm)} topic. Consider renaming or deleting other topics.`,
      );
    }
  }
  const description =
    req.description === undefined ? undefined : normalizeChannelDescription(req.description);
  let name: string | undefined;
  if (req.new_name !== undefined) {
    const wanted = req.new_name.trim();
    if (wanted === channel.name) throw badRequest("Channel already has that name.");
    name = validateChannelName(wanted);
    if (channelNameKey(name) !== channel.name_key && channels.channelByName(name)) {
      throw channelAlreadyExists(name);
    }
  }
  if (typeof req.folder_id === "number") validateFolderId(channels, req.folder_id);

  const groups = new Map<ChannelGroupSettingName, NormalizedGroupSetting>();
  for (const setting of CHANNEL_GROUP_SETTING_NAMES) {
    const update = req.groups[setting];
    if (update === undefined) continue;
    const current = channel[`${setting}_id`];
    if (update.old !== undefined && !groupSettingEquals(realm, current, update.old))
      throw expectationMismatch();
    if (groupSettingEquals(realm, current, update.new)) continue;
    if (CONTENT_GUARDED.has(setting) && !canAccessChannelContent(world, actor, channel)) {
      throw contentAccessRequired();
    }
    const value = validateGroupSetting(realm, setting, CHANNEL_GROUP_SETTINGS[setting], update.new);
    if (!isAdminRole(actor.role)) requireDeletePolicyPermission(realm, actor, setting, value);
    groups.set(setting, value);
  }
  if (privacyGiven || req.groups.can_create_topic_group !== undefined) {
    const topicGroup =
      groups.get("can_create_topic_group") ??
      (req.groups.can_create_topic_group
        ? normalizeGroupSetting(realm, req.groups.can_create_topic_group.new)
        : storedAsNormalized(realm, channel.can_create_topic_group_id));
    validateCreateTopicGroupForHistory(realm, historyPublic, topicGroup);
  }

  const changed = <T>(value: T | undefined, current: T) =>
    value !== undefined && value !== current ? value : undefined;
  return {
    privacy: privacyGiven
      ? { invite_only: inviteOnly, is_web_public: webPublic, history_public_to_subscribers: historyPublic }
      : undefined,
    message_retention_days: changed(req.message_retention_days, channel.message_retention_days),
    topics_policy: changed(req.topics_policy, channel.topics_policy as TopicsPolicy),
    description: changed(description, channel.description),
    name,
    folder_id: changed(req.folder_id, channel.folder_id),
    groups,
    unarchive,
    is_default_stream: req.is_default_stream,
  };
}

/** Applies validated changes: the row, groups, default channels, events and notices. */
export async function doUpdateChannel(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  actor: UserRow,
  channel: ChannelRow,
  changes: ChannelChanges,
): Promise<void> {
  const { realm, channels } = world;
  const columns: Partial<ChannelRow> = {};
  const updates: PropertyUpdate[] = [];
  const oldPolicy = permissionPolicy(channel);
  if (changes.privacy) {
    Object.assign(columns, changes.privacy);
    updates.push({
      property: "invite_only",
      value: changes.privacy.invite_only,
      extra: {
        history_public_to_subscribers: changes.privacy.history_public_to_subscribers,
        is_web_public: changes.privacy.is_web_public,
      },
    });
  }
  if (changes.message_retention_days !== undefined) {
    columns.message_retention_days = changes.message_retention_days;
    updates.push({ property: "message_retention_days", value: changes.message_retention_days });
  }
  if (changes.topics_policy !== undefined) {
    columns.topics_policy = changes.topics_policy;
    updates.push({ property: "topics_policy", value: changes.topics_policy });
  }
  if (changes.description !== undefined) {
    columns.description = changes.description;
    columns.rendered_description = renderMarkdown(changes.description);
    updates.push({
      property: "description",
      value: changes.description,
      extra: { rendered_description: columns.rendered_description },
    });
  }
  if (changes.name !== undefined) {
    Object.assign(columns, { name: changes.name, name_key: channelNameKey(changes.name) });
    updates.push({ property: "name", value: changes.name });
  }
  if (changes.folder_id !== undefined) {
    columns.folder_id = changes.folder_id;
    updates.push({ property: "folder_id", value: changes.folder_id });
  }
  const added: GroupNode[] = [];
  const released: number[] = [];
  for (const [setting, value] of changes.groups) {
    const stored = await storeChannelGroupSetting(tx, realm.id, value);
    columns[`${setting}_id`] = stored.groupId;
    if (stored.node) added.push(stored.node);
    const old = realm.groups.get(channel[`${setting}_id`]);
    if (old && old.row.name === null) released.push(old.row.id);
  }
  if (changes.unarchive) columns.is_archived = false;
  if (Object.keys(columns).length > 0) {
    await tx.knex("streams").where({ id: channel.id }).update(columns);
    invalidateChannels(app, tx, realm.id);
  }
  for (const groupId of released) await releaseGroupSetting(tx, realm, groupId);
  if (added.length > 0 || released.length > 0) tx.afterCommit(() => app.realms.invalidate(realm.id));
  const updated: ChannelRow = { ...channel, ...columns };
  const realmAfter = realmWithGroups(realm, added, released);
  for (const [setting] of changes.groups) {
    updates.push({ property: setting, value: groupSettingValueForApi(realmAfter, updated[`${setting}_id`]) });
  }
  // The legacy posting policy follows can_send_message_group; clients still read it.
  const [oldPostPolicy, newPostPolicy] = [
    streamPostPolicy(realm, channel),
    streamPostPolicy(realmAfter, updated),
  ];
  if (oldPostPolicy !== newPostPolicy) {
    updates.push({ property: "stream_post_policy", value: newPostPolicy });
    if ((oldPostPolicy === 2) !== (newPostPolicy === 2)) {
      updates.push({ property: "is_announcement_only", value: newPostPolicy === 2 });
    }
  }

  if (changes.is_default_stream === true) await doAddDefaultChannels(app, tx, world, [updated]);
  if (changes.is_default_stream === false && channels.defaultChannelIds.has(channel.id)) {
    await doRemoveDefaultChannel(app, tx, world, updated);
  }
  sendChannelUpdateEvents(tx, world, channel, updated, realmAfter, updates, changes.unarchive);

  // Notices in the channel, as Zulip posts them.
  const notice = { realm: realmAfter };
  const newPolicy = permissionPolicy(updated);
  if (changes.privacy && newPolicy !== oldPolicy) {
    await sendChannelNotice(app, tx, updated, permissionNotice(actor, oldPolicy, newPolicy), notice);
  }
  if (changes.topics_policy !== undefined) {
    const topicName = emptyTopicDisplayName(realm.realm);
    const text = topicsPolicyNotice(actor, channel.topics_policy, changes.topics_policy, topicName);
    await sendChannelNotice(app, tx, updated, text, notice);
  }
  if (changes.description !== undefined) {
    const text = descriptionNotice(actor, channel.description, changes.description);
    await sendChannelNotice(app, tx, updated, text, notice);
  }
  if (changes.name !== undefined) {
    await sendChannelNotice(app, tx, updated, renameNotice(actor, channel.name, changes.name), notice);
  }
  if (changes.unarchive) await sendChannelNotice(app, tx, updated, unarchiveNotice(updated), notice);
}

/** A stored group in normalized form (a named group, or an anonymous one's members). */
function storedAsNormalized(realm: RealmSnapshot, groupId: number): NormalizedGroupSetting {
  const node = realm.groups.get(groupId);
  if (!node || node.row.name !== null) return { kind: "named", groupId };
  return { kind: "anonymous", members: [...node.members], subgroups: [...node.subgroups] };
}

/**
 * Who learns what after a change: users who can no longer see the channel get a stream
 * delete; users who now can get a stream create and its subscribers (peer_add); the
 * rest get one stream update per changed property.
 */
function sendChannelUpdateEvents(
  tx: Tx,
  world: ChannelWorld,
  before: ChannelRow,
  after: ChannelRow,
  realmAfter: RealmSnapshot,
  updates: readonly PropertyUpdate[],
  unarchived: boolean,
): void {
  const { realm, channels } = world;
  const realmId = realm.id;
  const subscriberIds = channels.subscriberIds(before.id);
  const viewersBefore = channelViewerIds(realm, before, subscriberIds);
  const viewersAfter = channelViewerIds(realmAfter, after, subscriberIds);
  const lost = [...viewersBefore].filter((id) => !viewersAfter.has(id));
  const gained = [...viewersAfter].filter((id) => !viewersBefore.has(id));
  const stayed = [...viewersAfter].filter((id) => viewersBefore.has(id));
  const dict = presentChannel(realmAfter, channels, after);

  if (lost.length > 0) {
    tx.sendEventOnCommit(realmId, streamEvents.delete([before.id]), lost);
  }
  if (gained.length > 0) {
    tx.sendEventOnCommit(realmId, streamEvents.create([dict]), gained);
    const subscribers = channels.activeSubscriberIds(realm, before.id);
    if (subscribers.length > 0) {
      tx.sendEventOnCommit(
        realmId,
        subscriptionEvents.peers("peer_add", [before.id], [...subscribers]),
        gained,
      );
    }
  }
  let name = before.name;
  for (const update of updates) {
    tx.sendEventOnCommit(
      realmId,
      streamEvents.update({ id: before.id, name }, update.property, update.value, update.extra),
      stayed,
    );
    if (update.property === "name") name = update.value as string;
  }
  if (unarchived) {
    // Clients without archived_channels see this as the channel's creation (and, for
    // subscribers, their subscription's), via the stream flavour.
    const active = channels.activeSubscriberIds(realm, before.id);
    const recipients = new Map<number, UnarchiveExtra>();
    for (const userId of stayed) {
      const sub = channels.subscription(userId, before.id);
      recipients.set(
        userId,
        sub && bool(sub.active)
          ? {
              _subscription: presentSubscription(realmAfter, channels, after, sub, {
                key: "subscribers",
                ids: active,
              }),
            }
          : {},
      );
    }
    tx.sendEventOnCommit(
      realmId,
      streamEvents.unarchived(after, dict),
      recipients as Map<number, Record<string, unknown>>,
    );
  }
}

/** Realm settings that may point at a channel; cleared when it is archived. */
const REALM_CHANNEL_FIELDS = [
  "moderation_request_channel_id",
  "new_stream_announcements_stream_id",
  "signup_announcements_stream_id",
  "zulip_update_announcements_stream_id",
] as const;

/**
 * DELETE /streams/{stream_id}: archives a channel. Its name, subscriptions and history
 * stay; it stops being a default channel or an announcements channel.
 */
export async function checkArchiveChannel(app: App, actor: UserRow, channelId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const channel = accessChannelForAdministration(world, actor, channelId);
    if (isArchived(channel)) throw badRequest("Channel is already deactivated");
    await doArchiveChannel(app, tx, world, channel);
  });
}

export async function doArchiveChannel(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  channel: ChannelRow,
): Promise<void> {
  const { realm, channels } = world;
  const realmId = realm.id;
  const viewers = channelViewerIds(realm, channel, channels.subscriberIds(channel.id));
  await tx.knex("streams").where({ id: channel.id }).update({ is_archived: true });
  invalidateChannels(app, tx, realmId);
  const archived: ChannelRow = { ...channel, is_archived: true };

  const cleared = REALM_CHANNEL_FIELDS.filter((field) => realm.realm[field] === channel.id);
  if (cleared.length > 0) {
    await tx
      .knex("realms")
      .where({ id: realmId })
      .update(Object.fromEntries(cleared.map((f) => [f, null])));
    tx.afterCommit(() => app.realms.invalidate(realmId));
    const active = [...realm.users].filter((u) => bool(u.is_active)).map((u) => u.id);
    tx.sendEventOnCommit(
      realmId,
      realmUpdateDictEvent(Object.fromEntries(cleared.map((f) => [f, -1]))),
      active,
    );
  }
  if (channels.defaultChannelIds.has(channel.id)) await doRemoveDefaultChannel(app, tx, world, archived);
  tx.sendEventOnCommit(realmId, streamEvents.archived(channel), viewers);
  await sendChannelNotice(app, tx, archived, archiveNotice(archived));
}
