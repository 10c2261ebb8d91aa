/**
 * What a Zulip client does with events: apply them to its /register state. Tests use
 * it to check that register state + events == a fresh register (Zulip's verify_action).
 * Each feature adds its event types to APPLIERS.
 */
import {
  applyDeleteMessage,
  applyUnreadForMessage,
  applyUpdateMessage,
  applyUpdateMessageFlags,
  recountUnread,
} from "./apply-unread.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type State = Record<string, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Event = Record<string, any>;

/** What a client knows besides its state: who it is and what it registered with. */
export interface ApplyContext {
  /** The client's own user ID. */
  userId?: number;
  /** include_subscribers of the register request. */
  includeSubscribers?: boolean | "partial";
  /** client_capabilities of the register request. */
  capabilities?: Record<string, boolean>;
}
export type Applier = (state: State, event: Event, ctx: ApplyContext) => void;

const byUserId = (a: Event, b: Event) => a.user_id - b.user_id;

/** Zulip's realm_users / realm_non_active_users: one list per is_active, sorted by ID. */
function applyRealmUser(state: State, event: Event): void {
  const person = event.person as Event;
  const active = state.realm_users as Event[] | undefined;
  const inactive = state.realm_non_active_users as Event[] | undefined;
  if (!active || !inactive) return;
  switch (event.op) {
    case "add": {
      const copy = { ...person };
      delete copy.is_active;
      const list = person.is_active === false ? inactive : active;
      if (![...active, ...inactive].some((u) => u.user_id === person.user_id)) list.push(copy);
      list.sort(byUserId);
      break;
    }
    case "remove": {
      for (const list of [active, inactive]) {
        const index = list.findIndex((u) => u.user_id === person.user_id);
        if (index >= 0) list.splice(index, 1);
      }
      break;
    }
    case "update": {
      const target = [...active, ...inactive].find((u) => u.user_id === person.user_id);
      if (!target) break;
      const self = state.user_id === person.user_id;
      for (const [key, value] of Object.entries(person)) {
        if (key === "user_id") continue;
        if (key === "is_active") {
          // Deactivation and reactivation move the user between the two lists.
          const [from, to] = value ? [inactive, active] : [active, inactive];
          const index = from.findIndex((u) => u.user_id === person.user_id);
          if (index >= 0) {
            to.push(...from.splice(index, 1));
            to.sort(byUserId);
          }
        } else if (key === "custom_profile_field") {
          const field = value as Event;
          target.profile_data ??= {};
          if (field.value === null) delete target.profile_data[String(field.id)];
          else {
            target.profile_data[String(field.id)] =
              "rendered_value" in field
                ? { value: field.value, rendered_value: field.rendered_value }
                : { value: field.value };
          }
        } else if (key === "new_email") {
          target.email = value;
          if (self) state.email = value;
        } else if (key in target) {
          // Like Zulip's apply_event: only fields the user record has.
          target[key] = value;
        }
      }
      if ("role" in person) {
        target.is_owner = person.role === 100;
        target.is_admin = person.role <= 200;
        target.is_guest = person.role === 600;
      }
      if (self) {
        for (const key of [
          "full_name",
          "delivery_email",
          "avatar_source",
          "avatar_url",
          "avatar_url_medium",
        ]) {
          if (key in person && key in state) state[key] = person[key];
        }
        if ("role" in person) {
          state.is_owner = target.is_owner;
          state.is_admin = target.is_admin;
          state.is_guest = target.is_guest;
          state.is_moderator = person.role === 300;
        }
      }
      break;
    }
  }
}

/**
 * Zulip's apply_event for user_group: the list stays sorted by ID, as do its ID lists.
 * An event about a group the client does not know (e.g. a deactivated group sent to a
 * client without include_deactivated_groups) is a server bug: it throws.
 */
function applyUserGroup(state: State, event: Event): void {
  const groups = state.realm_user_groups as Event[] | undefined;
  if (!groups) return;
  const byId = (a: number, b: number) => a - b;
  if (event.op === "add") {
    if (groups.some((g) => g.id === event.group.id)) throw new Error(`group ${event.group.id} added twice`);
    groups.push(structuredClone(event.group));
    groups.sort((a, b) => a.id - b.id);
    return;
  }
  const group = groups.find((g) => g.id === event.group_id);
  if (!group) throw new Error(`user_group ${String(event.op)} event for unknown group ${event.group_id}`);
  switch (event.op) {
    case "update":
      Object.assign(group, structuredClone(event.data));
      break;
    case "add_members":
      group.members = [...group.members, ...event.user_ids].sort(byId);
      break;
    case "remove_members":
      group.members = group.members.filter((id: number) => !event.user_ids.includes(id));
      break;
    case "add_subgroups":
      group.direct_subgroup_ids = [...group.direct_subgroup_ids, ...event.direct_subgroup_ids].sort(byId);
      break;
    case "remove_subgroups":
      group.direct_subgroup_ids = group.direct_subgroup_ids.filter(
        (id: number) => !event.direct_subgroup_ids.includes(id),
      );
      break;
    case "remove":
      state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
      break;
    default:
      throw new Error(`unknown user_group op ${String(event.op)}`);
  }
}

/** The whole list; values of fields that no longer exist disappear from profiles. */
function applyCustomProfileFields(state: State, event: Event): void {
  if ("custom_profile_fields" in state) state.custom_profile_fields = event.fields;
  const ids = new Set((event.fields as Event[]).map((f) => String(f.id)));
  for (const user of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])] as Event[]) {
    if (!user.profile_data) continue;
    for (const id of Object.keys(user.profile_data)) if (!ids.has(id)) delete user.profile_data[id];
  }
}

/** Zulip's apply_event for user_status: "" (and away=false) clear a key; empty entries go. */
function applyUserStatus(state: State, event: Event): void {
  const statuses = state.user_status as Record<string, Event> | undefined;
  if (!statuses) return;
  const key = String(event.user_id);
  const status = (statuses[key] ??= {});
  if ("away" in event) {
    if (event.away) status.away = true;
    else delete status.away;
  }
  if ("status_text" in event) {
    if (event.status_text) status.status_text = event.status_text;
    else delete status.status_text;
  }
  if ("emoji_name" in event) {
    if (event.emoji_name) {
      status.emoji_name = event.emoji_name;
      status.emoji_code = event.emoji_code;
      status.reaction_type = event.reaction_type;
    } else {
      delete status.emoji_name;
      delete status.emoji_code;
      delete status.reaction_type;
    }
  }
  if (Object.keys(status).length === 0) delete statuses[key];
}

/**
 * presence: a modern event (simplified_presence_events) carries the entries as register
 * has them; a legacy one the "website" client, of which "aggregated" is a copy. A legacy
 * event without `email` (slim_presence) cannot rebuild a modern entry exactly (Zulip's
 * apply_event fetches it again), so such a client relies on its next presence poll.
 */
function applyPresence(state: State, event: Event): void {
  const presences = state.presences as Record<string, Event> | undefined;
  if (!presences) return;
  if ("presences" in event) {
    Object.assign(presences, event.presences);
    return;
  }
  if (!("email" in event)) throw new Error("a slim_presence presence event cannot be applied exactly");
  const website = event.presence.website as Event;
  presences[event.email as string] = {
    aggregated: { client: website.client, status: website.status, timestamp: website.timestamp },
    website,
  };
}

function applyUserSettings(state: State, event: Event): void {
  if (state.user_settings && event.op === "update") state.user_settings[event.property] = event.value;
}

function applyLegacyNotificationSetting(state: State, event: Event): void {
  if (event.notification_name in state) state[event.notification_name] = event.setting;
}

function applyLegacyDisplaySetting(state: State, event: Event): void {
  if (event.setting_name in state) state[event.setting_name] = event.setting;
}

function applyRealmUserSettingsDefaults(state: State, event: Event): void {
  const defaults = state.realm_user_settings_defaults as Event | undefined;
  if (defaults && event.op === "update") defaults[event.property] = event.value;
}

function applyNavigationView(state: State, event: Event): void {
  const views = state.navigation_views as Event[] | undefined;
  if (!views) return;
  if (event.op === "add") views.push(event.navigation_view);
  else if (event.op === "update")
    Object.assign(
      views.find((v) => v.fragment === event.fragment)!,
      event.data,
    );
  else if (event.op === "remove") {
    state.navigation_views = views.filter((v) => v.fragment !== event.fragment);
  }
}

function applySavedSnippets(state: State, event: Event): void {
  const snippets = state.saved_snippets as Event[] | undefined;
  if (!snippets) return;
  if (event.op === "add") snippets.push(event.saved_snippet);
  else if (event.op === "update") {
    const index = snippets.findIndex((s) => s.id === event.saved_snippet.id);
    snippets[index] = event.saved_snippet;
  } else if (event.op === "remove") {
    state.saved_snippets = snippets.filter((s) => s.id !== event.saved_snippet_id);
  }
}

/**
 * A user_topic event sets (or, with policy 0, drops) the policy of a topic, matched
 * case-insensitively; an entry keeps its first spelling, as the server's row does.
 */
function applyUserTopic(state: State, event: Event): void {
  const topics = state.user_topics as Event[] | undefined;
  if (topics) {
    const same = (t: Event) =>
      t.stream_id === event.stream_id &&
      String(t.topic_name).toLowerCase() === String(event.topic_name).toLowerCase();
    const known = topics.find(same);
    if (event.visibility_policy === 0) state.user_topics = topics.filter((t) => !same(t));
    else if (known)
      Object.assign(known, { visibility_policy: event.visibility_policy, last_updated: event.last_updated });
    else
      topics.push({
        stream_id: event.stream_id,
        topic_name: event.topic_name,
        last_updated: event.last_updated,
        visibility_policy: event.visibility_policy,
      });
  }
  recountUnread(state);
}

/** Starring and unstarring; deleted messages are unstarred. */
function applyStarred(state: State, event: Event): void {
  const starred = state.starred_messages as number[] | undefined;
  if (!starred) return;
  if (event.type === "update_message_flags" && event.flag === "starred") {
    const ids = new Set(event.messages as number[]);
    state.starred_messages =
      event.op === "add"
        ? [...new Set([...starred, ...ids])].sort((a, b) => a - b)
        : starred.filter((id) => !ids.has(id));
  } else if (event.type === "delete_message") {
    const ids = new Set((event.message_ids as number[] | undefined) ?? [event.message_id as number]);
    state.starred_messages = starred.filter((id) => !ids.has(id));
  }
}

/**
 * Zulip's apply_event for drafts, keeping register's order (most recently edited first;
 * Zulip's own appends and leaves the order to its clients).
 */
function applyDrafts(state: State, event: Event): void {
  let drafts = state.drafts as Event[] | undefined;
  if (!drafts) return;
  if (event.op === "add") drafts.push(...(event.drafts as Event[]));
  else if (event.op === "update") {
    const index = drafts.findIndex((d) => d.id === event.draft.id);
    if (index < 0) throw new Error(`drafts update for unknown draft ${event.draft.id}`);
    drafts[index] = event.draft;
  } else if (event.op === "remove") {
    if (!drafts.some((d) => d.id === event.draft_id)) throw new Error(`unknown draft ${event.draft_id}`);
    drafts = state.drafts = drafts.filter((d) => d.id !== event.draft_id);
  } else throw new Error(`unexpected drafts op ${event.op}`);
  drafts.sort((a, b) => b.timestamp - a.timestamp || b.id - a.id);
}

/** Zulip's apply_event for scheduled messages and reminders: kept in delivery order. */
function timedItemsApplier(key: "scheduled_messages" | "reminders", idKey: string): Applier {
  const single = key === "scheduled_messages" ? "scheduled_message" : "reminder";
  return (state, event) => {
    let items = state[key] as Event[] | undefined;
    if (!items) return;
    if (event.op === "add") items.push(...(event[key] as Event[]));
    else if (event.op === "update") {
      const index = items.findIndex((item) => item[idKey] === event[single][idKey]);
      if (index < 0) throw new Error(`${key} update for unknown item`);
      items[index] = event[single];
    } else if (event.op === "remove") {
      items = state[key] = items.filter((item) => item[idKey] !== event[idKey]);
    } else throw new Error(`unexpected ${key} op ${event.op}`);
    items.sort(
      (a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a[idKey] - b[idKey],
    );
  };
}

// ---- channels ----

const SUB_LISTS = ["subscriptions", "unsubscribed", "never_subscribed"] as const;
const byName = (a: Event, b: Event) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const subscriberKey = (entry: Event) =>
  "subscribers" in entry ? "subscribers" : "partial_subscribers" in entry ? "partial_subscribers" : null;

/** Channel records with this ID in the subscription lists (and `streams` if asked). */
function channelEntries(state: State, streamId: number, withStreams = true): Event[] {
  const entries: Event[] = [];
  for (const list of SUB_LISTS)
    for (const e of (state[list] as Event[] | undefined) ?? []) if (e.stream_id === streamId) entries.push(e);
  if (withStreams)
    for (const e of (state.streams as Event[] | undefined) ?? [])
      if (e.stream_id === streamId) entries.push(e);
  return entries;
}

function removeChannel(state: State, ids: ReadonlySet<number>): void {
  for (const list of [...SUB_LISTS, "streams"]) {
    if (state[list]) state[list] = (state[list] as Event[]).filter((e) => !ids.has(e.stream_id));
  }
}

/**
 * A client's subscriber bookkeeping: lists change by peer events; subscriber_count
 * follows the list where the client has one, else moves by the number of users, and
 * `streams` entries copy the count of the channel's subscription-list entry if any.
 */
function changeSubscribers(state: State, streamIds: number[], userIds: number[], add: boolean): void {
  for (const streamId of streamIds) {
    let known: number | null = null;
    for (const entry of channelEntries(state, streamId, false)) {
      const key = subscriberKey(entry);
      if (key) {
        const set = new Set<number>(entry[key]);
        for (const id of userIds)
          if (add) set.add(id);
          else set.delete(id);
        entry[key] = [...set].sort((a, b) => a - b);
      }
      if (key === "subscribers") entry.subscriber_count = entry.subscribers.length;
      else entry.subscriber_count += add ? userIds.length : -userIds.length;
      known = entry.subscriber_count;
    }
    for (const entry of (state.streams as Event[] | undefined) ?? []) {
      if (entry.stream_id !== streamId) continue;
      entry.subscriber_count = known ?? entry.subscriber_count + (add ? userIds.length : -userIds.length);
    }
  }
}

function applySubscription(state: State, event: Event, ctx: ApplyContext): void {
  switch (event.op) {
    case "add": {
      if (!state.subscriptions) break;
      for (const sub of event.subscriptions as Event[]) {
        const copy: Event = structuredClone(sub);
        if (!ctx.includeSubscribers) {
          delete copy.subscribers;
          delete copy.partial_subscribers;
        }
        state.unsubscribed = (state.unsubscribed as Event[]).filter((s) => s.stream_id !== sub.stream_id);
        state.never_subscribed = (state.never_subscribed as Event[]).filter(
          (s) => s.stream_id !== sub.stream_id,
        );
        if (!(state.subscriptions as Event[]).some((s) => s.stream_id === sub.stream_id))
          state.subscriptions.push(copy);
        for (const entry of (state.streams as Event[] | undefined) ?? []) {
          if (entry.stream_id === sub.stream_id) entry.subscriber_count = sub.subscriber_count;
        }
      }
      state.subscriptions.sort(byName);
      break;
    }
    case "remove": {
      if (!state.subscriptions) break;
      for (const { stream_id } of event.subscriptions as Event[]) {
        const sub = (state.subscriptions as Event[]).find((s) => s.stream_id === stream_id);
        if (!sub) continue;
        state.subscriptions = (state.subscriptions as Event[]).filter((s) => s !== sub);
        const key = subscriberKey(sub);
        if (key) sub[key] = (sub[key] as number[]).filter((id) => id !== ctx.userId);
        sub.subscriber_count -= 1;
        state.unsubscribed.push(sub);
        for (const entry of (state.streams as Event[] | undefined) ?? []) {
          if (entry.stream_id === stream_id) entry.subscriber_count = sub.subscriber_count;
        }
      }
      state.unsubscribed.sort(byName);
      break;
    }
    case "update":
      for (const sub of (state.subscriptions as Event[] | undefined) ?? []) {
        if (sub.stream_id === event.stream_id) sub[event.property] = event.value;
      }
      if (event.property === "is_muted") recountUnread(state);
      break;
    case "peer_add":
    case "peer_remove":
      changeSubscribers(state, event.stream_ids, event.user_ids, event.op === "peer_add");
      break;
    default:
      throw new Error(`unexpected subscription op ${event.op}`);
  }
}

function applyStream(state: State, event: Event, ctx: ApplyContext): void {
  switch (event.op) {
    case "create":
      for (const stream of event.streams as Event[]) {
        const known = [
          ...((state.subscriptions as Event[] | undefined) ?? []),
          ...((state.unsubscribed as Event[] | undefined) ?? []),
        ];
        if (state.never_subscribed && !known.some((s) => s.stream_id === stream.stream_id)) {
          const copy: Event = structuredClone(stream);
          if (ctx.includeSubscribers) copy.subscribers = [];
          state.never_subscribed.push(copy);
          state.never_subscribed.sort(byName);
        }
        if (state.streams && !(state.streams as Event[]).some((s) => s.stream_id === stream.stream_id)) {
          state.streams.push(structuredClone(stream));
          state.streams.sort(byName);
        }
      }
      break;
    case "delete":
      removeChannel(state, new Set(event.stream_ids as number[]));
      break;
    case "update":
      for (const entry of channelEntries(state, event.stream_id)) {
        entry[event.property] = event.value;
        if (event.property === "description") entry.rendered_description = event.rendered_description;
        if ("history_public_to_subscribers" in event)
          entry.history_public_to_subscribers = event.history_public_to_subscribers;
        if ("is_web_public" in event) entry.is_web_public = event.is_web_public;
      }
      if (event.property === "name") {
        for (const list of [...SUB_LISTS, "streams"]) (state[list] as Event[] | undefined)?.sort(byName);
      }
      break;
    default:
      throw new Error(`unexpected stream op ${event.op}`);
  }
}

function applyChannelFolder(state: State, event: Event): void {
  const folders = state.channel_folders as Event[] | undefined;
  if (!folders) return;
  if (event.op === "add") folders.push(event.channel_folder);
  else if (event.op === "update")
    Object.assign(folders.find((f) => f.id === event.channel_folder_id) ?? {}, event.data);
  else if (event.op === "reorder") {
    for (const [index, id] of (event.order as number[]).entries()) {
      const folder = folders.find((f) => f.id === id);
      if (folder) folder.order = index;
    }
  }
  folders.sort((a, b) => a.order - b.order || a.id - b.id);
}

/**
 * What the web client does with a new direct message in recent_private_conversations:
 * bump (or add) the conversation of its other participants, newest first.
 */
function applyRecentPrivateConversation(state: State, message: Event, ctx: ApplyContext): void {
  const conversations = state.recent_private_conversations as Event[] | undefined;
  if (!conversations || message.type !== "private") return;
  const others = (message.display_recipient as Event[])
    .map((user) => user.id as number)
    .filter((id) => id !== ctx.userId)
    .sort((a, b) => a - b);
  const known = conversations.find((c) => JSON.stringify(c.user_ids) === JSON.stringify(others));
  if (known) known.max_message_id = Math.max(known.max_message_id, message.id);
  else conversations.push({ max_message_id: message.id, user_ids: others });
  conversations.sort((a, b) => b.max_message_id - a.max_message_id);
}

function applyMessage(state: State, event: Event, ctx: ApplyContext): void {
  const message = event.message as Event;
  if ("max_message_id" in state) state.max_message_id = Math.max(state.max_message_id, message.id);
  applyRecentPrivateConversation(state, message, ctx);
  applyUnreadForMessage(state, event, ctx);
  if (message.type !== "stream") return;
  for (const list of ["subscriptions", "streams"]) {
    for (const entry of (state[list] as Event[] | undefined) ?? []) {
      if (entry.stream_id === message.stream_id && entry.first_message_id === null)
        entry.first_message_id = message.id;
    }
  }
}

/**
 * Zulip's apply_event for realm: each value to its realm_* key, and what Zulip derives
 * from some of them: realm_allow_edit_history from the edit history policy, and the
 * deprecated *_policy keys from the group settings that replaced them (the client's own
 * can_* flags are recomputed after every batch: recomputeOwnPermissions).
 */
function applyRealm(state: State, event: Event): void {
  if (event.op !== "update_dict" && event.op !== "update") return;
  const data: Event = event.op === "update_dict" ? event.data : { [event.property]: event.value };
  for (const [key, value] of Object.entries(data)) {
    if (!(`realm_${key}` in state)) continue;
    state[`realm_${key}`] = value;
    if (key === "message_edit_history_visibility_policy") state.realm_allow_edit_history = value !== "none";
    const legacy = LEGACY_POLICIES[key];
    if (legacy) state[legacy.key] = legacyPolicyValue(state, value, legacy);
  }
}

/** Zulip's policy enums (Realm.POLICY_*) and the settings that still show them. */
const POLICY = { members: 1, admins: 2, fullMembers: 3, moderators: 4, everyone: 5, nobody: 6, owners: 7 };
const COMMON = {
  "role:members": POLICY.members,
  "role:administrators": POLICY.admins,
  "role:fullmembers": POLICY.fullMembers,
  "role:moderators": POLICY.moderators,
};
const LEGACY_POLICIES: Record<string, { key: string; values: Record<string, number>; fallback: number }> = {
  can_create_public_channel_group: {
    key: "realm_create_public_stream_policy",
    values: COMMON,
    fallback: POLICY.members,
  },
  can_create_private_channel_group: {
    key: "realm_create_private_stream_policy",
    values: COMMON,
    fallback: POLICY.members,
  },
  can_create_web_public_channel_group: {
    key: "realm_create_web_public_stream_policy",
    values: {
      "role:administrators": POLICY.admins,
      "role:moderators": POLICY.moderators,
      "role:nobody": POLICY.nobody,
      "role:owners": POLICY.owners,
    },
    fallback: POLICY.moderators,
  },
  // WildcardMentionPolicyEnum has its own numbering.
  can_mention_many_users_group: {
    key: "realm_wildcard_mention_policy",
    values: {
      "role:everyone": 1,
      "role:members": 2,
      "role:fullmembers": 3,
      "role:administrators": 5,
      "role:nobody": 6,
      "role:moderators": 7,
    },
    fallback: 1,
  },
};

/** Zulip's get_corresponding_policy_value_for_group_setting, from the state's system groups. */
function legacyPolicyValue(
  state: State,
  value: unknown,
  legacy: { values: Record<string, number>; fallback: number },
) {
  const group =
    typeof value === "number"
      ? (state.realm_user_groups as Event[] | undefined)?.find((g) => g.id === value)
      : undefined;
  const name = group?.is_system_group ? (group.name as string) : undefined;
  return (name !== undefined ? legacy.values[name] : undefined) ?? legacy.fallback;
}

/**
 * Zulip's apply_event for realm_bot: add appends, delete drops, update merges the
 * changed fields (an owner change only sets owner_id). Bots are kept in ID order, as
 * a fresh register lists them (clients treat the list as a set).
 */
function applyRealmBot(state: State, event: Event): void {
  const bots = state.realm_bots as Event[] | undefined;
  if (!bots) return;
  const bot = event.bot as Event;
  switch (event.op) {
    case "add":
      bots.push({ ...bot });
      bots.sort(byUserId);
      break;
    case "delete":
      state.realm_bots = bots.filter((b) => b.user_id !== bot.user_id);
      break;
    case "update": {
      const target = bots.find((b) => b.user_id === bot.user_id);
      if (target && "owner_id" in bot) target.owner_id = bot.owner_id;
      else if (target) Object.assign(target, bot);
      break;
    }
  }
}

/** What Zulip's clients do with `device` events: a new device has no push registration. */
function applyDevice(state: State, event: Event): void {
  const devices = state.devices as Record<string, unknown> | undefined;
  if (!devices) return;
  const key = String(event.device_id);
  if (event.op === "add") {
    devices[key] = {
      push_key_id: null,
      push_token_id: null,
      pending_push_token_id: null,
      push_token_last_updated_timestamp: null,
      push_registration_error_code: null,
    };
  } else if (event.op === "remove") {
    delete devices[key];
  } else {
    throw new Error(`unexpected device op ${event.op}`);
  }
}

/**
 * Zulip's post_process_state for clients without notification_settings_null: a channel
 * notification setting left to inherit shows the user's default (false until set).
 */
function inheritNotificationSettings(state: State, ctx: ApplyContext): void {
  if (ctx.capabilities?.notification_settings_null) return;
  for (const list of ["subscriptions", "unsubscribed"]) {
    for (const sub of (state[list] as Event[] | undefined) ?? []) {
      for (const name of ["desktop", "audible", "push", "email"]) {
        const key = `${name}_notifications`;
        if (sub[key] === null) sub[key] = state.user_settings?.[`enable_stream_${key}`] ?? false;
      }
    }
  }
}

export const APPLIERS: Record<string, Applier> = {
  heartbeat: () => undefined,
  update_message_flags: (state, event, ctx) => {
    applyUpdateMessageFlags(state, event, ctx);
    applyStarred(state, event);
  },
  // Reactions and submessages live on messages, which register does not carry.
  reaction: () => undefined,
  submessage: () => undefined,
  delete_message: (state, event) => {
    applyDeleteMessage(state, event);
    applyStarred(state, event);
  },
  typing: () => undefined,
  typing_edit_message: () => undefined,
  update_message: applyUpdateMessage,
  realm_user: applyRealmUser,
  custom_profile_fields: applyCustomProfileFields,
  user_status: applyUserStatus,
  presence: applyPresence,
  user_settings: applyUserSettings,
  update_global_notifications: applyLegacyNotificationSetting,
  update_display_settings: applyLegacyDisplaySetting,
  realm_user_settings_defaults: applyRealmUserSettingsDefaults,
  user_group: applyUserGroup,
  navigation_view: applyNavigationView,
  saved_snippets: applySavedSnippets,
  user_topic: applyUserTopic,
  muted_topics: (state, event) => {
    if ("muted_topics" in state) state.muted_topics = event.muted_topics;
  },
  muted_users: (state, event) => {
    if ("muted_users" in state) state.muted_users = event.muted_users;
  },
  alert_words: (state, event) => {
    if ("alert_words" in state) state.alert_words = event.alert_words;
  },
  drafts: applyDrafts,
  scheduled_messages: timedItemsApplier("scheduled_messages", "scheduled_message_id"),
  reminders: timedItemsApplier("reminders", "reminder_id"),
  realm: applyRealm,
  realm_bot: applyRealmBot,
  subscription: applySubscription,
  stream: applyStream,
  channel_folder: applyChannelFolder,
  default_streams: (state, event) => {
    if ("realm_default_streams" in state) state.realm_default_streams = event.default_streams;
  },
  message: applyMessage,
  device: applyDevice,
  // Register carries no attachments (GET /attachments does).
  attachment: () => undefined,
  realm_emoji: applyRealmEmoji,
  realm_playgrounds: (state, event) => {
    if ("realm_playgrounds" in state) state.realm_playgrounds = event.realm_playgrounds;
  },
  // Register carries no invitations (GET /invites does).
  invites_changed: () => undefined,
  // Register carries no data exports or consents (GET /export/realm and /consents do).
  realm_export: () => undefined,
  realm_export_consent: () => undefined,
  realm_linkifiers: (state, event) => {
    if ("realm_linkifiers" in state) state.realm_linkifiers = event.realm_linkifiers;
  },
};

function applyRealmEmoji(state: State, event: Event): void {
  if (!("realm_emoji" in state)) return;
  if (event.op === "update") state.realm_emoji = event.realm_emoji;
  else if (event.op === "add") state.realm_emoji[event.emoji.id] = event.emoji;
  else if (event.op === "edit") Object.assign(state.realm_emoji[event.emoji_id], event.data);
  else throw new Error(`unknown realm_emoji op ${String(event.op)}`);
}

export function applyEvents(state: State, events: Event[], ctx: ApplyContext = {}): State {
  for (const event of events) {
    const applier = APPLIERS[event.type as string];
    if (!applier) throw new Error(`no applier for event type ${String(event.type)}`);
    // Appliers may keep parts of an event in the state: never let them alias it.
    applier(state, structuredClone(event), ctx);
  }
  recomputeOwnPermissions(state, ctx);
  inheritNotificationSettings(state, ctx);
  return state;
}

/**
 * What a client derives rather than receives: its own can_* flags, from the realm's
 * group settings and the groups it belongs to (Zulip's web app does the same).
 */
function recomputeOwnPermissions(state: State, ctx: ApplyContext): void {
  const groups = state.realm_user_groups as Event[] | undefined;
  if (!("can_create_streams" in state) || !groups || ctx.userId === undefined) return;
  const me = ctx.userId;
  const byId = new Map(groups.map((g) => [g.id as number, g]));
  const inGroup = (groupId: number, seen = new Set<number>()): boolean => {
    if (seen.has(groupId)) return false;
    seen.add(groupId);
    const group = byId.get(groupId);
    if (!group) return false;
    return (
      (group.members as number[]).includes(me) ||
      (group.direct_subgroup_ids as number[]).some((id) => inGroup(id, seen))
    );
  };
  const allowed = (setting: string, allowGuests = false): boolean => {
    if (state.is_guest && !allowGuests) return false;
    const value = state[`realm_${setting}`] as
      number | { direct_members: number[]; direct_subgroups: number[] };
    if (typeof value === "number") return inGroup(value);
    return value.direct_members.includes(me) || value.direct_subgroups.some((id) => inGroup(id));
  };
  state.can_create_public_streams = allowed("can_create_public_channel_group");
  state.can_create_private_streams = allowed("can_create_private_channel_group");
  state.can_create_streams = state.can_create_public_streams || state.can_create_private_streams;
  state.can_create_web_public_streams = allowed("can_create_web_public_channel_group");
  state.can_subscribe_other_users = allowed("can_add_subscribers_group");
  state.can_invite_others_to_realm = allowed("can_invite_users_group");
}
