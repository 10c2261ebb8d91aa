import { badRequest } from "../errors.js";
import type { QueueOptions, WireEvent } from "../wire/events.js";

export interface QueuedEvent {
  readonly id: number;
  readonly event: WireEvent;
  /** Several processes: the event log entry it came from, and that entry's first event ID here. */
  readonly logId?: number;
  readonly entryStart?: number;
}

/** Where a copy of a queue resumes: replaying the log after `logId`, numbering from `eventId`. */
export interface ResumePoint {
  logId: number;
  eventId: number;
}

/** What a parked long-poll is waiting with; resolved once, by events or a heartbeat. */
interface Waiter {
  resolve(events: QueuedEvent[]): void;
  /** When its heartbeat is due (ms, performance.now()). */
  due: number;
}

/**
 * The heartbeats of parked polls with the same interval: one timer for all of them, not
 * one each (10,000 parked polls would hold 10,000 timers). Polls park in the order their
 * heartbeats fall due, so the timer only ever waits for the oldest.
 */
class Heartbeats {
  private readonly parked = new Set<EventQueue>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly intervalMs: number) {}

  add(queue: EventQueue): void {
    this.parked.add(queue);
    if (!this.timer) this.schedule(this.intervalMs);
  }

  delete(queue: EventQueue): void {
    this.parked.delete(queue);
    if (this.parked.size === 0 && this.timer) {
      // Nothing left to wait for: the timer would only hold the process open.
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.fire(), Math.max(0, ms));
  }

  private fire(): void {
    this.timer = null;
    const now = performance.now();
    for (const queue of this.parked) {
      const due = queue.heartbeatDue;
      if (due === null) {
        this.parked.delete(queue);
        continue;
      }
      if (due > now) return this.schedule(due - now);
      this.parked.delete(queue);
      queue.push({ type: "heartbeat" });
    }
  }
}

/**
 * How long after answering a poll with events a queue holds back its next answer. Under
 * load every commit would otherwise answer every parked poll, and each answer costs a round
 * trip (the answer, the client's next GET, parking again); held back, one answer carries
 * several commits' events. A queue not answered that recently is answered at once, so
 * rare events wait for nothing. 16 ms: at half the send limit a commit lands every 6-10 ms,
 * and a window shorter than that merges none; 16 halves the answers (a simulation of 50
 * polls, commits every 8 ms: 12.5 answers a message at 0 and 8 ms, 6.5 at 16 ms, p99 of
 * the added delivery delay 21 ms).
 */
export const COALESCE_MS = 16;

/**
 * The held-back answers of queues with the same window: one timer for all of them. Queues
 * enter `recent` in the order they are answered, so their windows end in that order and the
 * timer only ever waits for the oldest.
 */
class Coalescer {
  /** Queues answered within the window, oldest answer first. */
  private readonly recent = new Set<EventQueue>();
  /** Queues with events and a parked poll, waiting for their window to end (all in `recent`). */
  private readonly held = new Set<EventQueue>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly windowMs: number) {}

  /**
   * Whether the queue's window is still open at `now`. Within a millisecond of its end
   * counts as ended: timers have millisecond resolution.
   */
  holds(queue: EventQueue, now: number): boolean {
    return queue.answeredAt + this.windowMs > now + 1;
  }

  answered(queue: EventQueue, now: number): void {
    this.recent.delete(queue);
    this.recent.add(queue);
    // Forget windows that ended with nothing held (the timer handles held ones): keeps
    // `recent` to the last window's answers without a timer running.
    for (const oldest of this.recent) {
      if (this.held.has(oldest) || this.holds(oldest, now)) break;
      this.recent.delete(oldest);
    }
  }

  hold(queue: EventQueue): void {
    this.held.add(queue);
    if (!this.timer) this.scheduleForOldest();
  }

  release(queue: EventQueue): void {
    this.held.delete(queue);
  }

  /** The oldest answer's window ends first: no held queue's ends sooner. */
  private scheduleForOldest(): void {
    const oldest = this.recent.values().next().value!;
    const ms = oldest.answeredAt + this.windowMs - performance.now();
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(ms)));
  }

  private fire(): void {
    this.timer = null;
    const now = performance.now();
    const due: EventQueue[] = [];
    for (const queue of this.recent) {
      if (this.holds(queue, now)) break;
      this.recent.delete(queue);
      if (this.held.delete(queue)) due.push(queue);
    }
    // Answering re-enters `recent`, so only after the walk.
    for (const queue of due) queue.wakeHeld();
    if (this.held.size > 0) this.scheduleForOldest();
  }
}

const coalescersByWindow = new Map<number, Coalescer>();

function coalescer(windowMs: number): Coalescer {
  let group = coalescersByWindow.get(windowMs);
  if (!group) coalescersByWindow.set(windowMs, (group = new Coalescer(windowMs)));
  return group;
}

const heartbeatsByInterval = new Map<number, Heartbeats>();

function heartbeats(intervalMs: number): Heartbeats {
  let group = heartbeatsByInterval.get(intervalMs);
  if (!group) heartbeatsByInterval.set(intervalMs, (group = new Heartbeats(intervalMs)));
  return group;
}

/** Saved form of a queue (graceful restart). */
export interface QueueSnapshot {
  id: string;
  userId: number;
  realmId: number;
  options: QueueOptions;
  nextEventId: number;
  newestPrunedId: number;
  events: QueuedEvent[];
}

/** One client's event queue: events with increasing IDs, pruned as the client acknowledges. */
export class EventQueue {
  events: QueuedEvent[] = [];
  nextEventId = 0;
  /** Highest event ID the client has acknowledged (-1: none). */
  newestPrunedId = -1;
  lastAccessMs: number;
  /** Told how many events were added (positive) or pruned (negative): the hub's total. */
  onResize: ((delta: number) => void) | null = null;
  /**
   * Several processes: a heartbeat takes no event ID (it answers the poll, ID = the last
   * event's, and is not queued), so every process's copy numbers events alike.
   */
  volatileHeartbeats = false;
  private windowMs = COALESCE_MS;
  /** When a poll was last answered with events (ms, performance.now()). */
  answeredAt = -Infinity;
  private waiter: Waiter | null = null;
  private heartbeats: Heartbeats | null = null;
  /** The parked poll's answer is coming: in a microtask, or when the window ends (held). */
  private wake: "none" | "soon" | "held" = "none";

  constructor(
    readonly id: string,
    readonly userId: number,
    readonly realmId: number,
    readonly options: QueueOptions,
    nowMs: number,
  ) {
    this.lastAccessMs = nowMs;
  }

  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  /** How long after an answer with events the next one is held back (COALESCE_MS; 0: never). */
  get coalesceMs(): number {
    return this.windowMs;
  }

  /** Only before the first answer (tests): a held queue must stay with its window's coalescer. */
  set coalesceMs(ms: number) {
    if (this.answeredAt !== -Infinity || this.wake !== "none")
      throw new Error("the queue was already answered");
    this.windowMs = ms;
  }

  get isPolling(): boolean {
    return this.waiter !== null;
  }

  /** When the parked poll's heartbeat is due; null when none is parked. */
  get heartbeatDue(): number | null {
    return this.waiter?.due ?? null;
  }

  push(event: WireEvent, from?: { logId: number; entryStart: number }): void {
    if (this.volatileHeartbeats && event.type === "heartbeat") {
      // Events pushed but not yet handed out go instead: answering a heartbeat with the
      // last ID would acknowledge them unseen.
      this.finishWait(this.events.length > 0 ? this.take() : [{ id: this.lastEventId, event }]);
      return;
    }
    this.events.push({ id: this.nextEventId++, event, ...from });
    this.onResize?.(1);
    // A heartbeat is due now; other events wait while the queue was just answered.
    if (this.waiter) this.scheduleWake(event.type === "heartbeat" || !this.answeredRecently());
  }

  /** Whether a poll was answered with events so recently that the next answer is held back. */
  answeredRecently(): boolean {
    return this.coalesceMs > 0 && coalescer(this.coalesceMs).holds(this, performance.now());
  }

  /** Everything queued, as a poll's answer: starts the queue's window when not empty. */
  take(): QueuedEvent[] {
    const events = this.events.slice();
    if (events.length > 0 && this.coalesceMs > 0) {
      this.answeredAt = performance.now();
      coalescer(this.coalesceMs).answered(this, this.answeredAt);
    }
    return events;
  }

  /**
   * Answers the parked poll: once per burst (events published by one commit go out
   * together), and when `now` is false only at the end of the queue's window.
   */
  private scheduleWake(now: boolean): void {
    if (this.wake === "soon") return;
    if (now) {
      if (this.wake === "held") coalescer(this.coalesceMs).release(this);
      this.wake = "soon";
      queueMicrotask(() => this.answer());
    } else if (this.wake === "none") {
      this.wake = "held";
      coalescer(this.coalesceMs).hold(this);
    }
  }

  /** The window of a held answer ended (the coalescer's timer). */
  wakeHeld(): void {
    if (this.wake === "held") this.answer();
  }

  private answer(): void {
    this.wake = "none";
    // A newer poll may have acknowledged everything meanwhile: it waits for new events.
    if (this.waiter && this.events.length > 0) this.finishWait(this.take());
  }

  /**
   * Drops events the client has processed (IDs up to and including lastEventId). As in
   * Zulip, acknowledging an ID the queue never issued, or going back before an already
   * acknowledged one, is an error.
   */
  acknowledge(lastEventId: number): void {
    if (lastEventId < this.newestPrunedId) {
      throw badRequest(`An event newer than ${lastEventId} has already been pruned!`);
    }
    if (lastEventId > this.lastEventId) throw badRequest(`Event ${lastEventId} was not in this queue`);
    let drop = 0;
    while (drop < this.events.length && this.events[drop]!.id <= lastEventId) drop++;
    if (drop > 0) {
      this.events.splice(0, drop);
      this.onResize?.(-drop);
    }
    this.newestPrunedId = lastEventId;
  }

  /**
   * Where a copy of this queue resumes after `position`, the last log entry applied: at
   * its first unacknowledged event's entry, or after `position` when none is left.
   */
  resumePoint(position: number): ResumePoint {
    const first = this.events[0];
    if (first?.logId !== undefined && first.entryStart !== undefined) {
      return { logId: first.logId - 1, eventId: first.entryStart };
    }
    return { logId: position, eventId: this.nextEventId };
  }

  /** A copy rebuilt from the log: drops what was acknowledged elsewhere, without the checks of `acknowledge`. */
  restoreAcknowledged(lastEventId: number): void {
    const kept = this.events.filter((queued) => queued.id > lastEventId);
    this.onResize?.(kept.length - this.events.length);
    this.events = kept;
    this.newestPrunedId = Math.max(this.newestPrunedId, lastEventId);
  }

  /**
   * Parks a long-poll; resolves with events (those already queued when the queue's window
   * ends), or a heartbeat after `heartbeatMs`.
   */
  wait(heartbeatMs: number): Promise<QueuedEvent[]> {
    this.finishWait([]); // a newer poll replaces an older one
    const parked = new Promise<QueuedEvent[]>((resolve) => {
      this.waiter = { resolve, due: performance.now() + heartbeatMs };
      this.heartbeats = heartbeats(heartbeatMs);
      this.heartbeats.add(this);
    });
    if (this.events.length > 0) this.scheduleWake(!this.answeredRecently());
    return parked;
  }

  /** Ends a parked poll (client went away, or shutdown) with the given events. */
  finishWait(events: QueuedEvent[]): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = null;
    this.heartbeats?.delete(this);
    waiter.resolve(events);
  }

  snapshot(): QueueSnapshot {
    return {
      id: this.id,
      userId: this.userId,
      realmId: this.realmId,
      options: this.options,
      nextEventId: this.nextEventId,
      newestPrunedId: this.newestPrunedId,
      events: this.events,
    };
  }

  static restore(snapshot: QueueSnapshot, nowMs: number): EventQueue {
    const queue = new EventQueue(snapshot.id, snapshot.userId, snapshot.realmId, snapshot.options, nowMs);
    queue.nextEventId = snapshot.nextEventId;
    queue.newestPrunedId = snapshot.newestPrunedId;
    queue.events = snapshot.events;
    return queue;
  }
}
