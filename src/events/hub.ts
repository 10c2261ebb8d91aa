import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import { badEventQueueId } from "../errors.js";
import type { EventSink } from "../db/tx.js";
import { ALSO_DELIVERED_AS, presentEvent } from "./flavours.js";
import { EventQueue, type QueuedEvent, type QueueSnapshot } from "./queue.js";
import {
  recipientUserIds,
  type ChatEvent,
  type EventRecipients,
  type QueueOptions,
  type WireEvent,
} from "../wire/events.js";
import { matchesEventNarrow, type NarrowedMessage } from "../lib/narrow/event-filter.js";

/** A message event as a queue would get it passes the queue's narrow (if any). */
function acceptsMessage(queue: EventQueue, event: WireEvent): boolean {
  const { narrow } = queue.options;
  if (narrow.length === 0) return true;
  return matchesEventNarrow(narrow, event.message as NarrowedMessage, event.flags as string[]);
}

/** An event's recipients as `send` routes them: the user IDs, and per-user extras if any. */
interface Routing {
  userIds: ReadonlySet<number>;
  perUser: ReadonlyMap<number, Record<string, unknown>> | null;
}

function routingOf(recipients: EventRecipients): Routing {
  const perUser =
    recipients instanceof Map ? (recipients as ReadonlyMap<number, Record<string, unknown>>) : null;
  return { userIds: new Set<number>(recipientUserIds(recipients)), perUser };
}

/** all_public_streams queues get every message to a public channel (Zulip's get_client_descriptors_for_realm_all_streams). */
const reachesAllPublicStreams = (event: ChatEvent): boolean =>
  event.type === "message" && event._hints.publicChannel === true;

/**
 * Whether `queue` gets `event`, and with which per-user extra: as a recipient, or as an
 * all_public_streams queue (no flags then). The one routing rule of `send` and `replayInto`.
 */
function routeTo(
  queue: EventQueue,
  realmId: number,
  event: ChatEvent,
  routing: Routing,
): { extra: Record<string, unknown> | undefined } | null {
  if (queue.realmId !== realmId) return null;
  if (routing.userIds.has(queue.userId)) return { extra: routing.perUser?.get(queue.userId) };
  if (reachesAllPublicStreams(event) && queue.options.allPublicStreams) return { extra: undefined };
  return null;
}

/** The user a `realm_user` update deactivates, if it does. */
function deactivatedUserId(event: ChatEvent): number | null {
  if (event.type !== "realm_user" || event.op !== "update") return null;
  const { person } = event;
  return "is_active" in person && !person.is_active ? person.user_id : null;
}

/** The queue to drop first: one nobody is polling, then the one polled longest ago. */
function leastRecentlyPolled(queues: Iterable<EventQueue>): EventQueue {
  let stalest: EventQueue | null = null;
  for (const queue of queues) {
    if (
      !stalest ||
      (stalest.isPolling && !queue.isPolling) ||
      (stalest.isPolling === queue.isPolling && queue.lastAccessMs < stalest.lastAccessMs)
    ) {
      stalest = queue;
    }
  }
  return stalest!;
}

/**
 * Several server processes (`serve --workers N`): every process applies the same event
 * log in the same order, so each holds an identical copy of any queue it has loaded; a
 * queue's registration and resume point are stored (events/replication.ts), so any
 * process can load any queue. Implemented by events/replication.ts.
 */
export interface QueueReplica {
  /** Applies the log's newest entries (takes the write lock). */
  catchUp(): Promise<void>;
  /** The same, inside the write lock (register's consistent read). */
  catchUpLocked(): Promise<void>;
  /** Stores a new queue, which starts after the last applied log entry. */
  save(queue: EventQueue): Promise<void>;
  /** Loads a queue another process registered, replayed from the log; null if it is gone. */
  load(queueId: string): Promise<EventQueue | null>;
  /** Deletes a queue everywhere. */
  remove(queue: EventQueue): Promise<void>;
  /** The client polled (its acknowledgement is stored soon). */
  touched(queue: EventQueue): void;
  /** Of these users, those with a stored queue (on any process) that receives messages. */
  usersReceivingMessages(userIds: readonly number[]): Promise<Set<number>>;
}

/** Zulip's ClientDescriptor.accepts_messages: the queue was registered for message events. */
export const acceptsMessages = (options: { readonly eventTypes: readonly string[] | null }): boolean =>
  options.eventTypes === null || options.eventTypes.includes("message");

export interface HubSettings {
  heartbeatMs: number;
  gcIntervalMs: number;
  maxQueueEvents: number;
  /** Queues per user; one more drops the user's least recently polled queue. */
  maxQueuesPerUser: number;
  /** Waiting long-polls per user; one more answers the oldest with a heartbeat. */
  maxParkedPollsPerUser: number;
  /** Unacknowledged events over all queues; beyond it the fullest queues are dropped. */
  maxTotalEvents: number;
}

/**
 * All live event queues of this process: fan-out of committed events, long-polling,
 * and garbage collection of idle queues.
 */
export class EventHub implements EventSink {
  private readonly queues = new Map<string, EventQueue>();
  private readonly queuesByUser = new Map<number, Set<EventQueue>>();
  /** Queues registered with all_public_streams, by realm. */
  private readonly allPublicStreamsQueues = new Map<number, Set<EventQueue>>();
  /** Each user's queues with a parked poll, oldest first (an array: most users park one). */
  private readonly parkedByUser = new Map<number, EventQueue[]>();
  private totalEvents = 0;
  private gcTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private replica: QueueReplica | null = null;
  /** The event log entry being applied (several processes), which tags queued events. */
  private applying: { logId: number } | null = null;

  constructor(
    private readonly settings: HubSettings,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.gcTimer ??= setInterval(() => this.collectGarbage(), this.settings.gcIntervalMs);
    this.gcTimer.unref();
  }

  /** Stops GC and releases every parked poll with no events, so the server can close. */
  stop(): void {
    this.stopped = true;
    if (this.gcTimer) clearInterval(this.gcTimer);
    this.gcTimer = null;
    for (const queue of this.queues.values()) queue.finishWait([]);
  }

  /** Whether this process serves event queues (a server; not an admin command). */
  get serving(): boolean {
    return this.gcTimer !== null;
  }

  get size(): number {
    return this.queues.size;
  }

  /** Unacknowledged events held over all queues. */
  get queuedEvents(): number {
    return this.totalEvents;
  }

  /** Several processes: queues are copies kept in step by the event log. */
  replicate(replica: QueueReplica): void {
    this.replica = replica;
  }

  get replicated(): boolean {
    return this.replica !== null;
  }

  createQueue(userId: number, realmId: number, options: QueueOptions): EventQueue {
    const id = `${Math.floor(this.clock.nowMs() / 1000)}:${randomBytes(6).toString("hex")}`;
    const queue = new EventQueue(id, userId, realmId, options, this.clock.nowMs());
    queue.volatileHeartbeats = this.replica !== null;
    this.add(queue);
    return queue;
  }

  /** Register, inside the write lock, before it captures its sources: every process's commits so far are applied. */
  async prepareRegister(): Promise<void> {
    await this.replica?.catchUpLocked();
  }

  /** This process's copy of a queue, if it has one. */
  localQueue(queueId: string): EventQueue | undefined {
    return this.queues.get(queueId);
  }

  get maxQueueEvents(): number {
    return this.settings.maxQueueEvents;
  }

  get maxQueuesPerUser(): number {
    return this.settings.maxQueuesPerUser;
  }

  /** Stores a queue just created, so that every process can serve it (several processes). */
  async persist(queue: EventQueue): Promise<void> {
    await this.replica?.save(queue);
  }

  /** The caller's queue, loaded from the store if another process registered it. */
  async openQueue(queueId: string, userId: number): Promise<EventQueue> {
    if (!this.replica) return this.getQueue(queueId, userId);
    // A poll sees every commit made before it, on any process (a deletion, an event the
    // client got elsewhere and now acknowledges): one indexed read of the log.
    // A queue loaded here catches up as it loads: the log is read once either way.
    if (this.queues.has(queueId)) {
      await this.replica.catchUp();
      return this.getQueue(queueId, userId);
    }
    const loaded = await this.replica.load(queueId);
    if (!loaded || loaded.userId !== userId) throw badEventQueueId(queueId);
    return loaded;
  }

  /** DELETE /events: the queue, on every process. */
  async removeQueue(queue: EventQueue): Promise<void> {
    this.deleteQueue(queue);
    await this.replica?.remove(queue);
  }

  /** A copy of a stored queue, before its replay; its heartbeats take no event ID. */
  copyQueue(id: string, userId: number, realmId: number, options: QueueOptions): EventQueue {
    const queue = new EventQueue(id, userId, realmId, options, this.clock.nowMs());
    queue.volatileHeartbeats = true;
    return queue;
  }

  /** Adds a copy built by `copyQueue` and replayed by `replayInto`. */
  adopt(queue: EventQueue): void {
    this.add(queue);
  }

  /** Applies one event log entry's event, as `send`, tagging what it queues with the entry. */
  sendLogged(logId: number, realmId: number, event: ChatEvent, recipients: EventRecipients): void {
    this.applying = { logId };
    try {
      this.send(realmId, event, recipients);
    } finally {
      this.applying = null;
    }
  }

  /**
   * Replays one logged event into one queue being loaded, as `send` would have delivered
   * it. Returns false when the event ends the queue (its user was deactivated).
   */
  replayInto(
    queue: EventQueue,
    logId: number,
    realmId: number,
    event: ChatEvent,
    recipients: EventRecipients,
  ): boolean {
    if (deactivatedUserId(event) === queue.userId) return false;
    const route = routeTo(queue, realmId, event, routingOf(recipients));
    if (!route) return true;
    this.applying = { logId };
    try {
      this.deliverTo(queue, event, route.extra);
    } finally {
      this.applying = null;
    }
    return true;
  }

  /** The caller's queue, or BAD_EVENT_QUEUE_ID (also for another user's queue). */
  getQueue(queueId: string, userId: number): EventQueue {
    const queue = this.queues.get(queueId);
    if (!queue || queue.userId !== userId) throw badEventQueueId(queueId);
    return queue;
  }

  deleteQueue(queue: EventQueue): void {
    queue.finishWait([]);
    if (this.queues.get(queue.id) !== queue) return;
    this.queues.delete(queue.id);
    queue.onResize = null;
    this.totalEvents -= queue.events.length;
    const own = this.queuesByUser.get(queue.userId);
    own?.delete(queue);
    if (own?.size === 0) this.queuesByUser.delete(queue.userId);
    const firehose = this.allPublicStreamsQueues.get(queue.realmId);
    firehose?.delete(queue);
    if (firehose?.size === 0) this.allPublicStreamsQueues.delete(queue.realmId);
  }

  /** Drops every queue of a user. */
  /** The queues web sessions registered, when those sessions end (logout, password change). */
  endSessionQueues(sessionIds: readonly number[]): void {
    const ended = new Set(sessionIds);
    for (const queue of [...this.queues.values()]) {
      const sessionId = queue.options.sessionId;
      if (sessionId !== undefined && ended.has(sessionId)) {
        this.removeQueue(queue).catch(() => this.deleteQueue(queue));
      }
    }
  }

  /**
   * Whether one of the user's queues in this process receives messages: Zulip's
   * receiver_is_off_zulip, negated. A queue counts until it is garbage-collected. With
   * several processes a queue may live in another one: ask `usersReceivingMessages`.
   */
  receivesMessagesHere(userId: number): boolean {
    for (const queue of this.queuesByUser.get(userId) ?? []) if (acceptsMessages(queue.options)) return true;
    return false;
  }

  /** Of these users, those with a live queue that receives messages, in any process. */
  async usersReceivingMessages(userIds: readonly number[]): Promise<Set<number>> {
    if (this.replica) return this.replica.usersReceivingMessages(userIds);
    return new Set(userIds.filter((userId) => this.receivesMessagesHere(userId)));
  }

  deleteQueuesOfUser(userId: number): void {
    for (const queue of [...(this.queuesByUser.get(userId) ?? [])]) this.deleteQueue(queue);
  }

  send(realmId: number, event: ChatEvent, recipients: EventRecipients): void {
    // A deactivated user's queues go with the event that announces it, so deactivation
    // drops them wherever it happened (an admin command's events arrive via the outbox).
    const deactivated = deactivatedUserId(event);
    if (deactivated !== null) this.deleteQueuesOfUser(deactivated);
    const routing = routingOf(recipients);
    const deliverIfRouted = (queue: EventQueue) => {
      const route = routeTo(queue, realmId, event, routing);
      if (route) this.deliver(queue, event, route.extra);
    };
    // No copies of the sets: a queue dropped while delivering (overflow) is simply not visited.
    for (const userId of routing.userIds) {
      const own = this.queuesByUser.get(userId);
      if (own) for (const queue of own) deliverIfRouted(queue);
    }
    if (reachesAllPublicStreams(event)) {
      for (const queue of this.allPublicStreamsQueues.get(realmId) ?? []) {
        // A recipient's queue got it above, with its flags.
        if (!routing.userIds.has(queue.userId)) deliverIfRouted(queue);
      }
    }
  }

  /** One event to one queue: its type filter, its flavour, its narrow; overflow drops it. */
  private deliver(queue: EventQueue, event: ChatEvent, extra: Record<string, unknown> | undefined): void {
    this.deliverTo(queue, event, extra);
    if (queue.events.length > this.settings.maxQueueEvents) {
      // Several processes: only this copy goes; a poll reloads it, or finds it expired.
      this.logger.warn(`event queue ${queue.id} overflowed; dropping it`);
      this.deleteQueue(queue);
    }
    if (this.totalEvents > this.settings.maxTotalEvents) this.dropFullestQueues();
  }

  private deliverTo(queue: EventQueue, event: ChatEvent, extra: Record<string, unknown> | undefined): void {
    const types = queue.options.eventTypes;
    const wanted = (type: string) => types === null || types.includes(type);
    if (!wanted(event.type) && !(ALSO_DELIVERED_AS[event.type] ?? []).some(wanted)) return;
    const shaped = presentEvent(event, {
      userId: queue.userId,
      queueId: queue.id,
      options: queue.options,
      extra,
    });
    if (shaped === null) return;
    const from = this.applying ? { logId: this.applying.logId, entryStart: queue.nextEventId } : undefined;
    if (!Array.isArray(shaped)) return this.pushIfWanted(queue, shaped, wanted, from);
    for (const one of shaped) this.pushIfWanted(queue, one, wanted, from);
  }

  private pushIfWanted(
    queue: EventQueue,
    event: WireEvent,
    wanted: (type: string) => boolean,
    from: { logId: number; entryStart: number } | undefined,
  ): void {
    if (!wanted(event.type)) return;
    if (event.type === "message" && !acceptsMessage(queue, event)) return;
    queue.push(event, from);
  }

  /**
   * Memory bound over all queues: drops the queues holding the most events (clients that
   * stopped acknowledging) until the total is back under the limit. Rare, so O(queues).
   */
  private dropFullestQueues(): void {
    const fullestFirst = [...this.queues.values()].sort((a, b) => b.events.length - a.events.length);
    for (const queue of fullestFirst) {
      if (this.totalEvents <= this.settings.maxTotalEvents) break;
      this.logger.warn(`event queues hold too many events; dropping queue ${queue.id}`);
      this.deleteQueue(queue);
    }
  }

  /**
   * GET /events: acknowledges up to lastEventId, then returns what is queued, or waits
   * for the next event or a heartbeat. A client that leaves ends the wait with
   * `queue.finishWait` (api/events.ts).
   */
  async poll(queue: EventQueue, lastEventId: number | undefined, dontBlock: boolean): Promise<QueuedEvent[]> {
    queue.lastAccessMs = this.clock.nowMs();
    if (lastEventId !== undefined) queue.acknowledge(lastEventId);
    this.replica?.touched(queue);
    // Events already queued are answered at once, unless the queue was answered so recently
    // that the poll waits out its window (collecting more).
    if (dontBlock || this.stopped || (queue.events.length > 0 && !queue.answeredRecently())) {
      return queue.take();
    }
    this.park(queue);
    try {
      return await queue.wait(this.settings.heartbeatMs);
    } finally {
      queue.lastAccessMs = this.clock.nowMs();
      // Still polling: a newer poll on the queue parked in this one's place.
      if (!queue.isPolling) this.unpark(queue);
    }
  }

  /**
   * Records a poll about to wait; past the user's limit the oldest waiting poll gets a
   * heartbeat now, as at the end of any wait (its client simply polls again).
   */
  private park(queue: EventQueue): void {
    let own = this.parkedByUser.get(queue.userId);
    if (!own) this.parkedByUser.set(queue.userId, (own = []));
    const already = own.indexOf(queue);
    if (already !== -1) own.splice(already, 1); // a newer poll on a queue replaces the older one
    while (own.length >= this.settings.maxParkedPollsPerUser) {
      const oldest = own.shift()!;
      if (oldest.isPolling) oldest.push({ type: "heartbeat" });
    }
    own.push(queue);
  }

  private unpark(queue: EventQueue): void {
    const own = this.parkedByUser.get(queue.userId);
    if (!own) return;
    const at = own.indexOf(queue);
    if (at !== -1) own.splice(at, 1);
    if (own.length === 0) this.parkedByUser.delete(queue.userId);
  }

  collectGarbage(): number {
    const now = this.clock.nowMs();
    let removed = 0;
    for (const queue of [...this.queues.values()]) {
      if (queue.isPolling) continue;
      if (now - queue.lastAccessMs > queue.options.idleTimeoutSecs * 1000) {
        this.deleteQueue(queue);
        removed++;
      }
    }
    if (removed > 0) this.logger.debug(`garbage-collected ${removed} idle event queue(s)`);
    return removed;
  }

  snapshot(): QueueSnapshot[] {
    return [...this.queues.values()].map((q) => q.snapshot());
  }

  /** Restores saved queues; their idle clock restarts now. */
  restore(snapshots: Iterable<QueueSnapshot>): void {
    for (const snapshot of snapshots) this.add(EventQueue.restore(snapshot, this.clock.nowMs()));
  }

  private add(queue: EventQueue): void {
    let own = this.queuesByUser.get(queue.userId);
    if (!own) this.queuesByUser.set(queue.userId, (own = new Set()));
    // Several processes: the store enforces the limit (Replication.save), so all agree.
    while (!this.replica && own.size >= this.settings.maxQueuesPerUser) {
      const stalest = leastRecentlyPolled(own);
      this.logger.info(`user ${queue.userId} has too many event queues; dropping queue ${stalest.id}`);
      this.deleteQueue(stalest);
    }
    this.queues.set(queue.id, queue);
    own.add(queue);
    this.totalEvents += queue.events.length;
    queue.onResize = (delta) => (this.totalEvents += delta);
    if (queue.options.allPublicStreams) {
      let firehose = this.allPublicStreamsQueues.get(queue.realmId);
      if (!firehose) this.allPublicStreamsQueues.set(queue.realmId, (firehose = new Set()));
      firehose.add(queue);
    }
  }
}
