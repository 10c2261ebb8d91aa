import type { ChannelRow } from "../../db/channel-rows.js";
import {
  hasCapability,
  type ChannelFolderEvent,
  type DefaultStreamsEvent,
  type Flavour,
  type StreamEvent,
  type StreamUpdateEvent,
  type StreamUpdateExtra,
  type SubscriptionEvent,
  type WireEvent,
} from "../../wire/events.js";
import type { WireChannel, WireChannelFolder, WireSubscription } from "../../wire/records.js";

/**
 * Channel events: streams, subscriptions, default channels and channel folders.
 *
 * Clients that declared the archived_channels capability see archived channels as
 * channels with is_archived: true; the others never see archived channels at all, so
 * archiving is a deletion for them and unarchiving a creation (Zulip, feature level 378).
 */

type ChannelName = Pick<ChannelRow, "id" | "name">;

export const streamEvents = {
  create(streams: WireChannel[]): StreamEvent {
    return { type: "stream", op: "create", streams };
  },
  delete(channelIds: number[]): StreamEvent {
    return {
      type: "stream",
      op: "delete",
      streams: channelIds.map((stream_id) => ({ stream_id })),
      stream_ids: channelIds,
    };
  },
  /** One changed property; `channel.name` is the name before the change. */
  update(
    channel: ChannelName,
    property: string,
    value: unknown,
    extra?: StreamUpdateExtra,
  ): StreamUpdateEvent {
    return {
      type: "stream",
      op: "update",
      stream_id: channel.id,
      name: channel.name,
      property,
      value,
      ...(extra ?? {}),
    };
  },
  /** The channel's new oldest message (feature level 256). */
  firstMessageId(channel: ChannelName, value: number | null): StreamUpdateEvent {
    return streamEvents.update(channel, "first_message_id", value);
  },
  archived(channel: ChannelName): StreamUpdateEvent {
    return streamEvents.update(channel, "is_archived", true);
  },
  /** `dict` is the channel after unarchiving: a creation for clients without the capability. */
  unarchived(channel: ChannelName, dict: WireChannel): StreamUpdateEvent {
    return { ...streamEvents.update(channel, "is_archived", false), _channel: dict };
  },
};

/** Per-recipient extra of an unarchive event: the recipient's own subscription, if any. */
export interface UnarchiveExtra {
  _subscription?: WireSubscription;
}

export const subscriptionEvents = {
  add(subscriptions: WireSubscription[]): SubscriptionEvent {
    return { type: "subscription", op: "add", subscriptions };
  },
  remove(subscriptions: Array<{ name: string; stream_id: number }>): SubscriptionEvent {
    return { type: "subscription", op: "remove", subscriptions };
  },
  /** Subscribers joined or left channels, for those who see the subscriber lists. */
  peers(op: "peer_add" | "peer_remove", channelIds: number[], userIds: number[]): SubscriptionEvent {
    return { type: "subscription", op, stream_ids: channelIds, user_ids: userIds };
  },
  /** One of the user's own settings of a subscription. */
  update(channelId: number, property: string, value: unknown): SubscriptionEvent {
    return { type: "subscription", op: "update", property, value, stream_id: channelId };
  },
};

export function defaultStreamsEvent(channelIds: number[]): DefaultStreamsEvent {
  return { type: "default_streams", default_streams: channelIds };
}

export const channelFolderEvents = {
  add(folder: WireChannelFolder): ChannelFolderEvent {
    return { type: "channel_folder", op: "add", channel_folder: folder };
  },
  update(folderId: number, data: Partial<WireChannelFolder>): ChannelFolderEvent {
    return { type: "channel_folder", op: "update", channel_folder_id: folderId, data };
  },
  reorder(order: number[]): ChannelFolderEvent {
    return { type: "channel_folder", op: "reorder", order };
  },
};

// ---- flavours ----

/** The event with the per-recipient extra merged in and every hint (`_` field) removed. */
function withoutHidden(event: WireEvent, extra: Record<string, unknown> | undefined): WireEvent {
  const shaped: Record<string, unknown> = { ...event, ...(extra ?? {}) };
  for (const key of Object.keys(shaped)) if (key.startsWith("_")) delete shaped[key];
  return shaped as WireEvent;
}

const isArchivedDict = (dict: WireChannel) => dict.is_archived === true;

export const streamEventFlavour: Flavour<"stream"> = (event, { options, extra }) => {
  if (hasCapability(options, "archived_channels")) return withoutHidden(event, undefined);
  if (event.op === "update" && event.property === "is_archived") {
    if (event.value === true) return streamEvents.delete([event.stream_id]);
    if (!event._channel) return null;
    const created: WireEvent[] = [streamEvents.create([event._channel])];
    const subscription = (extra as UnarchiveExtra | undefined)?._subscription;
    if (subscription) created.push(subscriptionEvents.add([subscription]));
    return created;
  }
  if (event.op === "create") {
    const streams = event.streams.filter((s) => !isArchivedDict(s));
    return streams.length === 0 ? null : { ...withoutHidden(event, undefined), streams };
  }
  return withoutHidden(event, undefined);
};

export const subscriptionEventFlavour: Flavour<"subscription"> = (event, { options, extra }) => {
  const shaped = withoutHidden(event, extra);
  if (event.op !== "add" || hasCapability(options, "archived_channels")) return shaped;
  const subscriptions = event.subscriptions.filter((s) => !isArchivedDict(s));
  return subscriptions.length === 0 ? null : { ...shaped, subscriptions };
};
