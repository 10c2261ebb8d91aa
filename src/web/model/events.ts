import { batch } from "@preact/signals-core";
import type {
  Message,
  Reaction,
  ServerEvent,
  Subscription,
  User,
  UserGroup,
  UserStatus,
} from "../api/types.js";
import type { ClientState } from "./client-state.js";
import { dmKey, mentionOf } from "./narrow.js";
import { dmPlace, streamPlace } from "./typing.js";
import type { Mention } from "./unread.js";
import type { World } from "./world.js";

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
      // The user's flags for message_id after the edit: an edit may add or drop a mention.
      const flags = event.flags;
      if (flags !== undefined) {
        messages.update(event.message_id, (m) => ({ ...m, flags }));
        unread.setMention(event.message_id, mentionOf(flags));
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
      if (event.message_ids.some((id) => world.starred.value.has(id))) {
        world.starred.value = new Set([...world.starred.value].filter((id) => !ids.has(id)));
      }
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
          type Listed = Subscription & { partial_subscribers?: number[] };
          for (const record of event.subscriptions as unknown as Listed[]) {
            // The client registers without subscriber lists (REGISTER_PARAMS): records stay as register gives them.
            const { subscribers: _all, partial_subscribers: _partial, ...sub } = record;
            next.set(sub.stream_id, sub);
            channels.set(sub.stream_id, sub);
          }
          world.subscriptions.value = next;
          world.channels.value = channels;
          return;
        }
        case "remove": {
          const ids = event.subscriptions.map((sub) => sub.stream_id);
          // Others get peer_remove; the user's own leaving counts here.
          world.changeSubscribers(ids, [state.myUserId], false);
          const next = new Map(world.subscriptions.value);
          for (const id of ids) {
            next.delete(id);
            // Register counts no unread messages in channels the user is not subscribed to.
            unread.removeChannel(id);
          }
          world.subscriptions.value = next;
          return;
        }
        case "update": {
          const { property, value } = event;
          // Zulip sends both in_home_view (the old name) and is_muted; records carry both.
          world.updateSubscription(
            event.stream_id,
            property === "in_home_view"
              ? { in_home_view: value as boolean, is_muted: !value }
              : property === "is_muted"
                ? { is_muted: value as boolean, in_home_view: !value }
                : { [property]: value },
          );
          return;
        }
        case "peer_add":
        case "peer_remove":
          world.changeSubscribers(event.stream_ids, event.user_ids, event.op === "peer_add");
          return;
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
            unread.removeChannel(id);
          }
          world.channels.value = channels;
          world.subscriptions.value = subs;
          return;
        }
        case "update": {
          // Some changes carry the fields that change with them (a description's HTML, history and
          // web-public access with invite_only).
          const { rendered_description, history_public_to_subscribers, is_web_public } = event;
          const extra = { rendered_description, history_public_to_subscribers, is_web_public };
          world.updateChannel(event.stream_id, {
            [event.property]: event.value,
            ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined)),
          });
          return;
        }
      }
      return;

    case "realm_user":
      if (event.op === "add") world.addUser({ ...event.person, is_active: true });
      else if (event.op === "update") {
        const { user_id, ...change } = event.person;
        if (user_id === state.myUserId && typeof change.role === "number") world.role.value = change.role;
        world.updateUser(user_id, personChange(world.users.value.get(user_id), change));
      } else world.updateUser(event.person.user_id, { is_active: false });
      return;

    case "user_settings":
      world.settings.value = { ...world.settings.value, [event.property]: event.value };
      return;

    case "user_status": {
      const { type: _type, id: _id, user_id, ...change } = event;
      const status = statusAfter(world.statuses.value.get(user_id) ?? {}, change);
      const next = new Map(world.statuses.value);
      if (Object.keys(status).length === 0) next.delete(user_id);
      else next.set(user_id, status);
      world.statuses.value = next;
      return;
    }

    case "user_topic": {
      const { stream_id, topic_name, last_updated, visibility_policy } = event;
      world.setUserTopic({ stream_id, topic_name, last_updated, visibility_policy });
      return;
    }

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

    case "user_group":
      applyUserGroup(world, event);
      return;

    case "invites_changed":
      world.invitesVersion.value++;
      return;

    case "heartbeat":
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
        // A held message's flags tell a wildcard mention (muted or not) from a direct one; details
        // only say whether it counted when it was marked.
        const held = messages.value(id);
        const mention: Mention = held ? mentionOf(held.flags) : details.mentioned === true ? "direct" : null;
        unread.add(
          id,
          details.type === "stream"
            ? { kind: "stream", streamId: details.stream_id!, topic: details.topic ?? "" }
            : { kind: "dm", key: dmKey(details.user_ids ?? [], state.myUserId) },
          mention,
        );
      }
    }
  }
  if (event.flag === "starred") {
    const starred = new Set(world.starred.value);
    for (const id of ids) {
      if (add) starred.add(id);
      else starred.delete(id);
    }
    world.starred.value = starred;
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
    mandatory_topics: "mandatoryTopics",
    email_changes_disabled: "emailChangesDisabled",
  };
  for (const [key, value] of Object.entries(data)) realm[names[key] ?? key] = value;
  state.world.realm.value = realm;
}

const sameReaction = (a: Reaction, b: Reaction) =>
  a.user_id === b.user_id && a.emoji_code === b.emoji_code && a.reaction_type === b.reaction_type;

const ROLE = { owner: 100, admin: 200, guest: 600 } as const;

/**
 * A realm_user update's `person` as a change of the user's record (register's shape): a
 * role with the flags it implies, a new email, one custom profile field; avatar fields
 * register does not carry are left out.
 */
function personChange(user: User | undefined, person: Record<string, unknown>): Partial<User> {
  const {
    role,
    new_email,
    custom_profile_field,
    avatar_source: _source,
    avatar_url_medium: _medium,
    ...rest
  } = person;
  const change: Record<string, unknown> = { ...rest };
  if (typeof role === "number") {
    Object.assign(change, {
      role,
      is_owner: role === ROLE.owner,
      is_admin: role <= ROLE.admin,
      is_guest: role === ROLE.guest,
    });
  }
  if (typeof new_email === "string") change.email = new_email;
  if (custom_profile_field) {
    const { id, value, rendered_value } = custom_profile_field as {
      id: number;
      value: string | null;
      rendered_value?: string;
    };
    const data = { ...(user?.profile_data ?? {}) };
    if (value === null) delete data[String(id)];
    else data[String(id)] = rendered_value === undefined ? { value } : { value, rendered_value };
    change.profile_data = data;
  }
  return change;
}

/** A status after a user_status event: only what is set, as register gives it (Zulip's format_user_status). */
function statusAfter(current: UserStatus, change: UserStatus): UserStatus {
  const status: UserStatus = { ...current, ...change };
  if (!status.away) delete status.away;
  if (!status.status_text) delete status.status_text;
  if (!status.emoji_name) {
    delete status.emoji_name;
    delete status.emoji_code;
    delete status.reaction_type;
  }
  return status;
}

const sortedIds = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

function applyUserGroup(world: World, event: Extract<ServerEvent, { type: "user_group" }>): void {
  switch (event.op) {
    case "add":
      world.groups.value = new Map(world.groups.value).set(
        event.group.id as number,
        event.group as unknown as UserGroup,
      );
      return;
    case "update":
      world.updateGroup(event.group_id, (g) => ({ ...g, ...event.data }));
      return;
    case "add_members":
      world.updateGroup(event.group_id, (g) => ({
        ...g,
        members: sortedIds([...g.members, ...event.user_ids]),
      }));
      return;
    case "remove_members": {
      const leaving = new Set(event.user_ids);
      world.updateGroup(event.group_id, (g) => ({
        ...g,
        members: g.members.filter((id) => !leaving.has(id)),
      }));
      return;
    }
    case "add_subgroups":
      world.updateGroup(event.group_id, (g) => ({
        ...g,
        direct_subgroup_ids: sortedIds([...g.direct_subgroup_ids, ...event.direct_subgroup_ids]),
      }));
      return;
    case "remove_subgroups": {
      const leaving = new Set(event.direct_subgroup_ids);
      world.updateGroup(event.group_id, (g) => ({
        ...g,
        direct_subgroup_ids: g.direct_subgroup_ids.filter((id) => !leaving.has(id)),
      }));
      return;
    }
    case "remove":
      world.updateGroup(event.group_id, () => null);
      return;
  }
}
