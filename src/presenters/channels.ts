import type { ChannelFolderRow, ChannelRow, SubscriptionRow } from "../db/channel-rows.js";
import { bool, int, intOrNull } from "../db/rows.js";
import type { WireChannelFolder } from "../wire/records.js";
import type { ChannelSnapshot } from "../world/channels.js";
import type { RealmSnapshot } from "../world/realm.js";
import { groupSettingValueForApi } from "../permissions/group-settings.js";
import type { ChannelGroupSettingName } from "../permissions/setting-registry.js";

/**
 * The Channel record (GET /streams, register `streams`, stream create events) and the
 * Subscription record (GET /users/me/subscriptions, register `subscriptions`,
 * subscription add events), in Zulip's shapes. One builder for all of them.
 */
export type ApiChannel = Record<string, unknown>;

/** Legacy stream_post_policy, derived from can_send_message_group (1 when not a role). */
const POST_POLICY_BY_GROUP: Readonly<Record<string, number>> = {
  "role:administrators": 2,
  "role:fullmembers": 3,
  "role:moderators": 4,
};

export function streamPostPolicy(realm: RealmSnapshot, channel: ChannelRow): number {
  const node = realm.groups.get(channel.can_send_message_group_id);
  if (!node || !bool(node.row.is_system_group) || node.row.name === null) return 1;
  return POST_POLICY_BY_GROUP[node.row.name] ?? 1;
}

export interface PresentChannelOptions {
  /** The channel's subscribers if they differ from the snapshot's (events after a change). */
  subscriberIds?: readonly number[];
}

function subscriberCount(
  realm: RealmSnapshot,
  channels: ChannelSnapshot,
  channel: ChannelRow,
  override: readonly number[] | undefined,
): number {
  if (!override) return channels.activeSubscriberIds(realm, channel.id).length;
  return override.filter((id) => bool(realm.user(id)?.is_active)).length;
}

export function presentChannel(
  realm: RealmSnapshot,
  channels: ChannelSnapshot,
  channel: ChannelRow,
  options: PresentChannelOptions = {},
): ApiChannel {
  return channelRecord(realm, channels, channel, options);
}

type ChannelRecord = ReturnType<typeof channelRecord>;

function channelRecord(
  realm: RealmSnapshot,
  channels: ChannelSnapshot,
  channel: ChannelRow,
  options: PresentChannelOptions,
) {
  // One object literal (not keys added one by one): V8 keeps it compact, and listing
  // subscriptions is a hot path.
  const group = (groupId: number) => groupSettingValueForApi(realm, groupId);
  const postPolicy = streamPostPolicy(realm, channel);
  return {
    is_archived: bool(channel.is_archived),
    can_add_subscribers_group: group(channel.can_add_subscribers_group_id),
    can_administer_channel_group: group(channel.can_administer_channel_group_id),
    can_create_topic_group: group(channel.can_create_topic_group_id),
    can_delete_any_message_group: group(channel.can_delete_any_message_group_id),
    can_delete_own_message_group: group(channel.can_delete_own_message_group_id),
    can_move_messages_out_of_channel_group: group(channel.can_move_messages_out_of_channel_group_id),
    can_move_messages_within_channel_group: group(channel.can_move_messages_within_channel_group_id),
    can_send_message_group: group(channel.can_send_message_group_id),
    can_remove_subscribers_group: group(channel.can_remove_subscribers_group_id),
    can_resolve_topics_group: group(channel.can_resolve_topics_group_id),
    can_subscribe_group: group(channel.can_subscribe_group_id),
    creator_id: channel.creator_id,
    date_created: int(channel.date_created),
    description: channel.description,
    first_message_id: channel.first_message_id,
    folder_id: channel.folder_id,
    // Zulip clears this for channels without messages for 180 days, in a periodic job.
    is_recently_active: true,
    history_public_to_subscribers: bool(channel.history_public_to_subscribers),
    invite_only: bool(channel.invite_only),
    is_web_public: bool(channel.is_web_public),
    message_retention_days: channel.message_retention_days,
    name: channel.name,
    rendered_description: channel.rendered_description,
    stream_id: channel.id,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === 2,
    stream_weekly_traffic: channels.weeklyTraffic(channel),
    subscriber_count: subscriberCount(realm, channels, channel, options.subscriberIds),
    topics_policy: channel.topics_policy,
  } satisfies Record<`${ChannelGroupSettingName}`, unknown> & Record<string, unknown>;
}

const nullableBool = (value: SubscriptionRow["desktop_notifications"]) =>
  value === null || value === undefined ? null : bool(value);

/** Subscribers as a record carries them: the full list, a partial one, or none. */
export type SubscriberField =
  | { key: "subscribers"; ids: readonly number[] }
  | { key: "partial_subscribers"; ids: readonly number[] }
  | null;

/** A Subscription record: the channel plus the user's own settings for it. */
export function presentSubscription(
  realm: RealmSnapshot,
  channels: ChannelSnapshot,
  channel: ChannelRow,
  sub: SubscriptionRow,
  subscribers: SubscriberField,
  options: PresentChannelOptions = {},
): ApiChannel {
  // Spelled out key by key: spreading the channel record and adding keys makes V8 fall
  // back to slow dictionary objects, which costs a third of GET /users/me/subscriptions.
  const c: ChannelRecord = channelRecord(realm, channels, channel, options);
  const dict: ApiChannel = {
    is_archived: c.is_archived,
    audible_notifications: nullableBool(sub.audible_notifications),
    can_add_subscribers_group: c.can_add_subscribers_group,
    can_administer_channel_group: c.can_administer_channel_group,
    can_create_topic_group: c.can_create_topic_group,
    can_delete_any_message_group: c.can_delete_any_message_group,
    can_delete_own_message_group: c.can_delete_own_message_group,
    can_move_messages_out_of_channel_group: c.can_move_messages_out_of_channel_group,
    can_move_messages_within_channel_group: c.can_move_messages_within_channel_group,
    can_send_message_group: c.can_send_message_group,
    can_remove_subscribers_group: c.can_remove_subscribers_group,
    can_resolve_topics_group: c.can_resolve_topics_group,
    can_subscribe_group: c.can_subscribe_group,
    color: sub.color,
    creator_id: c.creator_id,
    date_created: c.date_created,
    description: c.description,
    desktop_notifications: nullableBool(sub.desktop_notifications),
    email_notifications: nullableBool(sub.email_notifications),
    first_message_id: c.first_message_id,
    folder_id: c.folder_id,
    is_recently_active: c.is_recently_active,
    history_public_to_subscribers: c.history_public_to_subscribers,
    in_home_view: !bool(sub.is_muted),
    invite_only: c.invite_only,
    is_announcement_only: c.is_announcement_only,
    is_muted: bool(sub.is_muted),
    is_web_public: c.is_web_public,
    message_retention_days: c.message_retention_days,
    name: c.name,
    pin_to_top: bool(sub.pin_to_top),
    push_notifications: nullableBool(sub.push_notifications),
    rendered_description: c.rendered_description,
    stream_id: c.stream_id,
    stream_post_policy: c.stream_post_policy,
    stream_weekly_traffic: c.stream_weekly_traffic,
    subscriber_count: c.subscriber_count,
    topics_policy: c.topics_policy,
    wildcard_mentions_notify: nullableBool(sub.wildcard_mentions_notify),
  };
  if (subscribers) dict[subscribers.key] = [...subscribers.ids];
  return dict;
}

/** A never-subscribed channel in register state: the channel and maybe its subscribers. */
export function presentNeverSubscribed(
  realm: RealmSnapshot,
  channels: ChannelSnapshot,
  channel: ChannelRow,
  subscribers: SubscriberField,
): ApiChannel {
  const dict = presentChannel(realm, channels, channel);
  if (subscribers) dict[subscribers.key] = [...subscribers.ids];
  return dict;
}

/** Orders channel records by name, as Zulip sorts channel lists. */
export function compareByName(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): number {
  const [x, y] = [String(a.name), String(b.name)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A ChannelFolder record. */
export function presentChannelFolder(folder: ChannelFolderRow): WireChannelFolder {
  return {
    id: folder.id,
    name: folder.name,
    description: folder.description,
    rendered_description: folder.rendered_description,
    date_created: intOrNull(folder.date_created),
    creator_id: folder.creator_id,
    order: folder.order,
    is_archived: bool(folder.is_archived),
  };
}
