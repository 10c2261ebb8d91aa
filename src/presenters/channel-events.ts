import type { ChannelRow } from "../db/channel-rows.js";
import type { Flavour } from "../events/types.js";
import { hasCapability, type ChatEvent } from "../events/types.js";
import type { ApiChannel } from "./channels.js";

/**
 * Per-client shapes of channel events. Clients that declared the archived_channels
 * capability see archived channels as channels with is_archived: true; the others
 * never see archived channels at all, so archiving is a deletion for them and
 * unarchiving a creation (Zulip, feature level 378).
 */

/** Hidden fields actions attach for the flavours; never delivered. */
export interface ArchiveHints {
  /** The channel as it is after unarchiving (creation for clients without the capability). */
  _channel?: ApiChannel;
}

/** Per-recipient extra of an unarchive event: the recipient's own subscription, if any. */
export interface UnarchiveExtra {
  _subscription?: ApiChannel;
}

function withoutHidden(event: ChatEvent, extra: Record<string, unknown> | undefined): ChatEvent {
  const shaped: Record<string, unknown> = { ...event, ...(extra ?? {}) };
  for (const key of Object.keys(shaped)) if (key.startsWith("_")) delete shaped[key];
  return shaped as ChatEvent;
}

const isArchivedDict = (dict: unknown) => (dict as { is_archived?: unknown }).is_archived === true;

export const streamEventFlavour: Flavour = (event, { options, extra }) => {
  if (hasCapability(options, "archived_channels")) return withoutHidden(event, undefined);
  if (event.op === "update" && event.property === "is_archived") {
    const streamId = event.stream_id as number;
    if (event.value === true) {
      return { type: "stream", op: "delete", streams: [{ stream_id: streamId }], stream_ids: [streamId] };
    }
    const channel = (event as ChatEvent & ArchiveHints)._channel;
    if (!channel) return null;
    const created: ChatEvent[] = [{ type: "stream", op: "create", streams: [channel] }];
    const subscription = (extra as UnarchiveExtra | undefined)?._subscription;
    if (subscription) created.push({ type: "subscription", op: "add", subscriptions: [subscription] });
    return created;
  }
  if (event.op === "create") {
    const streams = (event.streams as ApiChannel[]).filter((s) => !isArchivedDict(s));
    return streams.length === 0 ? null : { ...withoutHidden(event, undefined), streams };
  }
  return withoutHidden(event, undefined);
};

export const subscriptionEventFlavour: Flavour = (event, { options, extra }) => {
  const shaped = withoutHidden(event, extra);
  if (event.op !== "add" || hasCapability(options, "archived_channels")) return shaped;
  const subscriptions = (event.subscriptions as ApiChannel[]).filter((s) => !isArchivedDict(s));
  return subscriptions.length === 0 ? null : { ...shaped, subscriptions };
};

/** The stream update event for a channel's new oldest message (feature level 256). */
export function firstMessageIdEvent(channel: ChannelRow, value: number | null) {
  return {
    type: "stream",
    op: "update",
    stream_id: channel.id,
    name: channel.name,
    property: "first_message_id",
    value,
  };
}
