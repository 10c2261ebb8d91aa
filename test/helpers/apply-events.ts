/**
 * What a Zulip client does with events: apply them to its /register state. Tests use
 * it to check that register state + events == a fresh register (Zulip's verify_action).
 * Each feature adds its event types to APPLIERS.
 */
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
}
export type Applier = (state: State, event: Event, ctx: ApplyContext) => void;

function applyRealmUser(state: State, event: Event): void {
  const person = event.person as Event;
  const users = state.realm_users as Event[] | undefined;
  if (!users) return;
  switch (event.op) {
    case "add": {
      const copy = { ...person };
      delete copy.profile_data;
      delete copy.is_active;
      if (!users.some((u) => u.user_id === person.user_id)) users.push(copy);
      users.sort((a, b) => a.user_id - b.user_id);
      break;
    }
    case "remove": {
      const index = users.findIndex((u) => u.user_id === person.user_id);
      if (index >= 0) {
        const [removed] = users.splice(index, 1);
        state.realm_non_active_users.push(removed);
        state.realm_non_active_users.sort((a: Event, b: Event) => a.user_id - b.user_id);
      }
      break;
    }
    case "update": {
      const all = [...users, ...(state.realm_non_active_users as Event[])];
      const target = all.find((u) => u.user_id === person.user_id);
      if (!target) break;
      for (const [key, value] of Object.entries(person)) {
        if (key === "user_id" || key === "custom_profile_field") continue;
        if (key === "new_email") target.email = value;
        else target[key] = value;
      }
      if ("role" in person) {
        target.is_owner = person.role === 100;
        target.is_admin = person.role <= 200;
        target.is_guest = person.role === 600;
        if (state.user_id === person.user_id) {
          state.is_owner = target.is_owner;
          state.is_admin = target.is_admin;
          state.is_guest = target.is_guest;
          state.is_moderator = person.role === 300;
        }
      }
      if ("full_name" in person && state.user_id === person.user_id) state.full_name = person.full_name;
      break;
    }
  }
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

function applyMessage(state: State, event: Event): void {
  const message = event.message as Event;
  if ("max_message_id" in state) state.max_message_id = Math.max(state.max_message_id, message.id);
  if (message.type !== "stream") return;
  for (const list of ["subscriptions", "streams"]) {
    for (const entry of (state[list] as Event[] | undefined) ?? []) {
      if (entry.stream_id === message.stream_id && entry.first_message_id === null)
        entry.first_message_id = message.id;
    }
  }
}

function applyRealm(state: State, event: Event): void {
  if (event.op === "update_dict") {
    for (const [key, value] of Object.entries(event.data as Event)) {
      if (`realm_${key}` in state) state[`realm_${key}`] = value;
    }
  } else if (event.op === "update" && `realm_${event.property}` in state) {
    state[`realm_${event.property}`] = event.value;
  }
}

export const APPLIERS: Record<string, Applier> = {
  heartbeat: () => undefined,
  realm_user: applyRealmUser,
  realm: applyRealm,
  subscription: applySubscription,
  stream: applyStream,
  channel_folder: applyChannelFolder,
  default_streams: (state, event) => {
    if ("realm_default_streams" in state) state.realm_default_streams = event.default_streams;
  },
  message: applyMessage,
};

export function applyEvents(state: State, events: Event[], ctx: ApplyContext = {}): State {
  for (const event of events) {
    const applier = APPLIERS[event.type as string];
    if (!applier) throw new Error(`no applier for event type ${String(event.type)}`);
    applier(state, event, ctx);
  }
  return state;
}
