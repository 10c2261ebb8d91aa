import { batch } from "@preact/signals-core";
import type { Message, Reaction, ServerEvent, Subscription } from "../api/types.js";
import type { ClientState } from "./client-state.js";
import { dmKey } from "./narrow.js";
import { dmPlace, streamPlace } from "./typing.js";

/**
 * Applies one event from the queue to the client's state: register's state plus the
 * events that follow it is the state a new register would give. Events the web client
 * shows nothing of are ignored.
 */
export function applyEvent(state: ClientState, event: ServerEvent): void {
  batch(() => apply(state, event));
}

function apply(state: ClientState, event: ServerEvent): void {
  const { world, messages, unread, lists } = state;
  switch (event.type) {
    case "message":
      state.addMessage({ ...event.message, flags: event.flags });
      return;

    case "update_message": {
      const changed: Message[] = [];
      if (event.rendered_content !== undefined) {
        messages.update(event.message_id, (m) => ({
          ...m,
          content: event.rendered_content!,
          ...(event.rendering_only ? {} : { last_edit_timestamp: event.edit_timestamp }),
        }));
      }
      const moved = event.new_stream_id !== undefined || event.subject !== undefined;
      if (moved) {
        const streamId = event.new_stream_id;
        const topic = event.subject;
        const streamName = streamId === undefined ? undefined : world.channelName(streamId);
        for (const id of event.message_ids) {
          messages.update(id, (m) => ({
            ...m,
            ...(streamId === undefined
              ? {}
              : { stream_id: streamId, display_recipient: streamName ?? m.display_recipient }),
            ...(topic === undefined ? {} : { subject: topic }),
            last_moved_timestamp: event.edit_timestamp,
          }));
          const message = messages.value(id);
          if (message) changed.push(message);
        }
        unread.move(event.message_ids, {
          ...(streamId === undefined ? {} : { streamId }),
          ...(topic === undefined ? {} : { topic }),
        });
        for (const list of lists.all()) {
          list.recheck(changed);
          list.touch(event.message_ids);
        }
        for (const message of changed) {
          if (message.type === "stream") state.topics.note(message.stream_id!, message.subject, message.id);
        }
      }
      return;
    }

    case "delete_message": {
      const ids = new Set(event.message_ids);
      unread.remove(ids);
      for (const list of lists.all()) list.remove(ids);
      messages.delete(ids);
      return;
    }

    case "update_message_flags":
      return applyFlags(state, event);

    case "reaction": {
      const reaction: Reaction = {
        emoji_name: event.emoji_name,
        emoji_code: event.emoji_code,
        reaction_type: event.reaction_type,
        user_id: event.user_id,
      };
      messages.update(event.message_id, (m) => ({
        ...m,
        reactions:
          event.op === "add"
            ? [...m.reactions.filter((r) => !sameReaction(r, reaction)), reaction]
            : m.reactions.filter((r) => !sameReaction(r, reaction)),
      }));
      return;
    }

    case "typing": {
      if (event.sender.user_id === state.myUserId) return;
      const place =
        event.message_type === "stream"
          ? streamPlace(event.stream_id, event.topic)
          : dmPlace(dmKey([...event.recipients.map((r) => r.user_id)], state.myUserId));
      if (event.op === "start")
        state.typing.start(place, event.sender.user_id, Date.now() + world.realm.value.typingExpiryMs);
      else state.typing.stop(place, event.sender.user_id);
      return;
    }

    case "subscription":
      switch (event.op) {
        case "add": {
          const next = new Map(world.subscriptions.value);
          const channels = new Map(world.channels.value);
          for (const sub of event.subscriptions as unknown as Subscription[]) {
            next.set(sub.stream_id, sub);
            channels.set(sub.stream_id, sub);
          }
          world.subscriptions.value = next;
          world.channels.value = channels;
          return;
        }
        case "remove": {
          const next = new Map(world.subscriptions.value);
          for (const sub of event.subscriptions) next.delete(sub.stream_id);
          world.subscriptions.value = next;
          return;
        }
        case "update":
          world.updateSubscription(event.stream_id, {
            [event.property === "in_home_view" ? "is_muted" : event.property]:
              event.property === "in_home_view" ? !event.value : event.value,
          });
          return;
        case "peer_add":
        case "peer_remove": {
          const next = new Map(world.subscriptions.value);
          for (const streamId of event.stream_ids) {
            const sub = next.get(streamId);
            if (!sub?.subscribers) continue;
            const subscribers = new Set(sub.subscribers);
            for (const userId of event.user_ids) {
              if (event.op === "peer_add") subscribers.add(userId);
              else subscribers.delete(userId);
            }
            next.set(streamId, { ...sub, subscribers: [...subscribers] });
          }
          world.subscriptions.value = next;
          return;
        }
      }
      return;

    case "stream":
      switch (event.op) {
        case "create": {
          const next = new Map(world.channels.value);
          for (const channel of event.streams as unknown as Subscription[])
            next.set(channel.stream_id, channel);
          world.channels.value = next;
          return;
        }
        case "delete": {
          const channels = new Map(world.channels.value);
          const subs = new Map(world.subscriptions.value);
          for (const id of event.stream_ids) {
            channels.delete(id);
            subs.delete(id);
          }
          world.channels.value = channels;
          world.subscriptions.value = subs;
          return;
        }
        case "update":
          world.updateChannel(event.stream_id, {
            [event.property]: event.value,
            ...(event.rendered_description === undefined
              ? {}
              : { rendered_description: event.rendered_description }),
          });
          return;
      }
      return;

    case "realm_user":
      if (event.op === "add") world.addUser({ ...event.person, is_active: true });
      else if (event.op === "update") {
        const { user_id, ...change } = event.person;
        if (user_id === state.myUserId && typeof change.role === "number") world.role.value = change.role;
        world.updateUser(user_id, change);
      } else world.updateUser(event.person.user_id, { is_active: false });
      return;

    case "user_settings":
      world.settings.value = { ...world.settings.value, [event.property]: event.value };
      return;

    case "user_status": {
      const { type: _type, id: _id, user_id, ...status } = event;
      const current = world.statuses.value.get(user_id) ?? {};
      world.statuses.value = new Map(world.statuses.value).set(user_id, { ...current, ...status });
      return;
    }

    case "user_topic":
      world.setUserTopic(event);
      return;

    case "muted_users":
      world.mutedUsers.value = new Set(event.muted_users.map((m) => m.id));
      return;

    case "presence": {
      const next = new Map(world.presence.value);
      for (const [id, presence] of Object.entries(event.presences)) next.set(Number(id), presence);
      world.presence.value = next;
      return;
    }

    case "realm_emoji":
      if (event.op === "update") {
        world.customEmoji.value = new Map(
          Object.values(event.realm_emoji)
            .filter((e) => !e.deactivated)
            .map((e) => [e.name, e]),
        );
      }
      return;

    case "realm":
      if (event.op === "update") applyRealm(state, { [event.property]: event.value });
      else if (event.op === "update_dict") applyRealm(state, event.data);
      return;

    case "drafts": {
      const next = new Map(state.drafts.value);
      if (event.op === "add") for (const draft of event.drafts) next.set(draft.id, draft);
      else if (event.op === "update") next.set(event.draft.id, event.draft);
      else next.delete(event.draft_id);
      state.drafts.value = next;
      return;
    }

    case "heartbeat":
    case "user_group":
    case "restart":
    case "web_reload_client":
    case "other":
      return;
  }
}

function applyFlags(state: ClientState, event: Extract<ServerEvent, { type: "update_message_flags" }>): void {
  const { messages, unread, world } = state;
  const add = event.op === "add";
  const ids = event.all ? unread.allIds() : event.messages;
  for (const id of ids) {
    messages.update(id, (m) => ({
      ...m,
      flags: add ? [...new Set([...m.flags, event.flag])] : m.flags.filter((f) => f !== event.flag),
    }));
  }
  if (event.flag === "read") {
    if (add) unread.remove(ids);
    else {
      for (const id of event.messages) {
        const details = event.message_details?.[String(id)] as
          | {
              type: "stream" | "private";
              stream_id?: number;
              topic?: string;
              user_ids?: number[];
              mentioned?: boolean;
            }
          | undefined;
        if (!details) continue;
        unread.add(
          id,
          details.type === "stream"
            ? { kind: "stream", streamId: details.stream_id!, topic: details.topic ?? "" }
            : { kind: "dm", key: dmKey(details.user_ids ?? [], state.myUserId) },
          details.mentioned === true,
        );
      }
    }
  }
  if (event.flag === "starred") {
    world.starredCount.value = Math.max(0, world.starredCount.value + (add ? ids.length : -ids.length));
  }
  for (const list of state.lists.all()) {
    const changed = ids.map((id) => messages.value(id)).filter((m): m is Message => m !== undefined);
    list.recheck(changed);
  }
}

function applyRealm(state: ClientState, data: Record<string, unknown>): void {
  const realm = { ...state.world.realm.value };
  const names: Record<string, string> = {
    name: "name",
    description: "description",
    icon_url: "iconUrl",
    allow_message_editing: "allowMessageEditing",
    message_content_edit_limit_seconds: "editLimitSecs",
    message_content_delete_limit_seconds: "deleteLimitSecs",
    enable_read_receipts: "readReceipts",
  };
  for (const [key, value] of Object.entries(data)) realm[names[key] ?? key] = value;
  state.world.realm.value = realm;
}

const sameReaction = (a: Reaction, b: Reaction) =>
  a.user_id === b.user_id && a.emoji_code === b.emoji_code && a.reaction_type === b.reaction_type;
