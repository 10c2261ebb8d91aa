import { batch, computed, signal } from "@preact/signals-core";
import type {
  Channel,
  InitialState,
  Presence,
  Subscription,
  User,
  UserGroup,
  UserSettings,
  UserStatus,
  UserTopic,
  VisibilityPolicy,
  WireCustomEmoji,
} from "../api/types.js";
import type { Directory } from "./narrow.js";

/** Realm settings the views read, from register's realm_* fields and `realm` events. */
export interface RealmSettings {
  name: string;
  description: string;
  iconUrl: string;
  allowMessageEditing: boolean;
  editLimitSecs: number | null;
  deleteLimitSecs: number | null;
  readReceipts: boolean;
  maxUploadMib: number;
  emptyTopicName: string;
  mandatoryTopics: boolean;
  typingStartedWaitMs: number;
  typingStoppedWaitMs: number;
  typingExpiryMs: number;
  serverEmojiDataUrl: string | undefined;
  /** Whether members may not change their email (administrators always may). */
  emailChangesDisabled: boolean;
  [key: string]: unknown;
}

/** The topic visibility policies (Zulip's user_topic). */
export const VISIBILITY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

const topicKey = (streamId: number, topic: string) => `${streamId}\0${topic.toLowerCase()}`;

/**
 * Everything the client knows besides messages and unread counts: the realm, people,
 * channels and the user's subscriptions and settings. Each is a signal holding an
 * immutable value, replaced on change, so views redraw exactly what changed.
 */
export class World implements Directory {
  readonly myUserId = 0;
  readonly realm = signal<RealmSettings>(null as unknown as RealmSettings);
  readonly users = signal<ReadonlyMap<number, User>>(new Map());
  readonly groups = signal<ReadonlyMap<number, UserGroup>>(new Map());
  /** Every channel the user can see, subscribed or not. */
  readonly channels = signal<ReadonlyMap<number, Channel>>(new Map());
  readonly subscriptions = signal<ReadonlyMap<number, Subscription>>(new Map());
  readonly settings = signal<UserSettings>(null as unknown as UserSettings);
  readonly presence = signal<ReadonlyMap<number, Presence>>(new Map());
  /** Seconds between the server's clock and ours when presence was read. */
  presenceClockSkew = 0;
  readonly statuses = signal<ReadonlyMap<number, UserStatus>>(new Map());
  readonly userTopics = signal<ReadonlyMap<string, UserTopic>>(new Map());
  readonly mutedUsers = signal<ReadonlySet<number>>(new Set());
  readonly customEmoji = signal<ReadonlyMap<string, WireCustomEmoji>>(new Map());
  /** The user's starred messages (a set: a message deleted or starred twice counts once). */
  readonly starred = signal<ReadonlySet<number>>(new Set());
  readonly starredCount = computed(() => this.starred.value.size);
  readonly role = signal(400);
  /** Counts invites_changed events: the invitations page fetches GET /invites again. */
  readonly invitesVersion = signal(0);

  /** Subscribed channels in the sidebar's order: pinned first, then by name. */
  readonly sidebarChannels = computed(() =>
    [...this.subscriptions.value.values()]
      .filter((sub) => !sub.is_archived)
      .sort((a, b) => Number(b.pin_to_top) - Number(a.pin_to_top) || a.name.localeCompare(b.name)),
  );

  readonly me = computed(() => this.users.value.get(this.myUserId));
  readonly isAdmin = computed(() => this.role.value <= 200);

  load(state: InitialState): void {
    batch(() => {
      (this as { myUserId: number }).myUserId = state.user_id;
      this.realm.value = realmSettings(state);
      // Register's lists say who is active; the records themselves do not.
      const users = new Map<number, User>();
      for (const user of [...state.realm_users, ...state.cross_realm_bots])
        users.set(user.user_id, { ...user, is_active: true });
      for (const user of state.realm_non_active_users) users.set(user.user_id, { ...user, is_active: false });
      this.users.value = users;
      // Register has no top-level role: the user's own record has it.
      this.role.value = users.get(state.user_id)?.role ?? roleOf(state);
      this.groups.value = new Map(state.realm_user_groups.map((g) => [g.id, g]));
      const channels = new Map<number, Channel>();
      for (const c of [...state.never_subscribed, ...state.unsubscribed, ...state.subscriptions]) {
        channels.set(c.stream_id, c);
      }
      this.channels.value = channels;
      this.subscriptions.value = new Map(state.subscriptions.map((s) => [s.stream_id, s]));
      this.settings.value = state.user_settings;
      this.presenceClockSkew = state.server_timestamp - Date.now() / 1000;
      this.presence.value = new Map(Object.entries(state.presences).map(([id, p]) => [Number(id), p]));
      this.statuses.value = new Map(Object.entries(state.user_status).map(([id, s]) => [Number(id), s]));
      this.userTopics.value = new Map(state.user_topics.map((t) => [topicKey(t.stream_id, t.topic_name), t]));
      this.mutedUsers.value = new Set(state.muted_users.map((m) => m.id));
      this.customEmoji.value = new Map(
        Object.values(state.realm_emoji)
          .filter((e) => !e.deactivated)
          .map((e) => [e.name, e]),
      );
      this.starred.value = new Set(state.starred_messages);
    });
  }

  // ---- Directory ----

  channelByName(name: string): Channel | undefined {
    const wanted = name.toLowerCase();
    for (const channel of this.channels.value.values())
      if (channel.name.toLowerCase() === wanted) return channel;
    return undefined;
  }

  channelName(streamId: number): string | undefined {
    return this.channels.value.get(streamId)?.name;
  }

  userByEmail(email: string): User | undefined {
    const wanted = email.toLowerCase();
    for (const user of this.users.value.values()) {
      if (user.email.toLowerCase() === wanted || user.delivery_email?.toLowerCase() === wanted) return user;
    }
    return undefined;
  }

  fullName(userId: number): string | undefined {
    return this.users.value.get(userId)?.full_name;
  }

  // ---- questions views ask ----

  topicPolicy(streamId: number, topic: string): VisibilityPolicy {
    return this.userTopics.value.get(topicKey(streamId, topic))?.visibility_policy ?? VISIBILITY.inherit;
  }

  /** Whether a topic's messages are hidden from counts and the combined feed. */
  isTopicMuted(streamId: number, topic: string): boolean {
    const policy = this.topicPolicy(streamId, topic);
    if (policy === VISIBILITY.muted) return true;
    if (policy === VISIBILITY.unmuted || policy === VISIBILITY.followed) return false;
    return this.subscriptions.value.get(streamId)?.is_muted ?? false;
  }

  // ---- changes ----

  updateUser(userId: number, change: Partial<User>): void {
    const user = this.users.value.get(userId);
    if (!user) return;
    this.users.value = new Map(this.users.value).set(userId, { ...user, ...change });
  }

  addUser(user: User): void {
    this.users.value = new Map(this.users.value).set(user.user_id, user);
  }

  updateChannel(streamId: number, change: Partial<Channel>): void {
    const channel = this.channels.value.get(streamId);
    if (channel) this.channels.value = new Map(this.channels.value).set(streamId, { ...channel, ...change });
    const sub = this.subscriptions.value.get(streamId);
    if (sub)
      this.subscriptions.value = new Map(this.subscriptions.value).set(streamId, { ...sub, ...change });
  }

  /** A change of the user's subscription, also in the channel's record (register gives the subscription there). */
  updateSubscription(streamId: number, change: Partial<Subscription>): void {
    const sub = this.subscriptions.value.get(streamId);
    if (!sub) return;
    const updated = { ...sub, ...change };
    this.subscriptions.value = new Map(this.subscriptions.value).set(streamId, updated);
    if (this.channels.value.has(streamId))
      this.channels.value = new Map(this.channels.value).set(streamId, updated);
  }

  /** People joined or left channels: subscriber counts, and lists where the client has them. */
  changeSubscribers(streamIds: readonly number[], userIds: readonly number[], joined: boolean): void {
    const change = <T extends Channel & { subscribers?: number[] }>(record: T): T => {
      if (!record.subscribers) {
        const count = (record.subscriber_count ?? 0) + (joined ? userIds.length : -userIds.length);
        return { ...record, subscriber_count: Math.max(0, count) };
      }
      const subscribers = new Set(record.subscribers);
      for (const id of userIds) {
        if (joined) subscribers.add(id);
        else subscribers.delete(id);
      }
      return { ...record, subscribers: [...subscribers], subscriber_count: subscribers.size };
    };
    const subs = new Map(this.subscriptions.value);
    const channels = new Map(this.channels.value);
    for (const streamId of streamIds) {
      const sub = subs.get(streamId);
      const record = sub ?? channels.get(streamId);
      if (!record) continue;
      const updated = change(record);
      if (sub) subs.set(streamId, updated as Subscription);
      if (channels.has(streamId)) channels.set(streamId, updated);
    }
    this.subscriptions.value = subs;
    this.channels.value = channels;
  }

  updateGroup(groupId: number, change: (group: UserGroup) => UserGroup | null): void {
    const group = this.groups.value.get(groupId);
    if (!group) return;
    const next = new Map(this.groups.value);
    const changed = change(group);
    if (changed) next.set(groupId, changed);
    else next.delete(groupId);
    this.groups.value = next;
  }

  setUserTopic(topic: UserTopic): void {
    const next = new Map(this.userTopics.value);
    const key = topicKey(topic.stream_id, topic.topic_name);
    if (topic.visibility_policy === VISIBILITY.inherit) next.delete(key);
    else next.set(key, topic);
    this.userTopics.value = next;
  }
}

/** The user's role from register's is_* flags (for a user missing from realm_users). */
function roleOf(state: InitialState): number {
  if (state.is_owner) return 100;
  if (state.is_admin) return 200;
  if (state.is_moderator) return 300;
  return state.is_guest ? 600 : 400;
}

function realmSettings(state: InitialState): RealmSettings {
  return {
    name: state.realm_name,
    description: state.realm_description,
    iconUrl: state.realm_icon_url,
    allowMessageEditing: state.realm_allow_message_editing,
    editLimitSecs: state.realm_message_content_edit_limit_seconds,
    deleteLimitSecs: state.realm_message_content_delete_limit_seconds,
    readReceipts: state.realm_enable_read_receipts,
    maxUploadMib: state.max_file_upload_size_mib,
    emptyTopicName: state.realm_empty_topic_display_name ?? "general chat",
    mandatoryTopics: state.realm_mandatory_topics ?? false,
    typingStartedWaitMs: state.server_typing_started_wait_period_milliseconds,
    typingStoppedWaitMs: state.server_typing_stopped_wait_period_milliseconds,
    typingExpiryMs: state.server_typing_started_expiry_period_milliseconds,
    serverEmojiDataUrl: state.server_emoji_data_url,
    emailChangesDisabled: state.realm_email_changes_disabled ?? false,
  };
}
