import { badRequest } from "../errors.js";
import type { QueueOptions, WireEvent } from "./types.js";

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
  private waiter: Waiter | null = null;
  private heartbeats: Heartbeats | null = null;
  private wakeScheduled = false;

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
      this.finishWait(this.events.length > 0 ? this.events.slice() : [{ id: this.lastEventId, event }]);
      return;
    }
    this.events.push({ id: this.nextEventId++, event, ...from });
    this.onResize?.(1);
    // Wake the poller once per burst: events published by one commit go out together.
    if (this.waiter && !this.wakeScheduled) {
      this.wakeScheduled = true;
      queueMicrotask(() => {
        this.wakeScheduled = false;
        this.finishWait(this.events.slice());
      });
    }
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

  /** Parks a long-poll; resolves with events, or a heartbeat after `heartbeatMs`. */
  wait(heartbeatMs: number): Promise<QueuedEvent[]> {
    this.finishWait([]); // a newer poll replaces an older one
    return new Promise((resolve) => {
      this.waiter = { resolve, due: performance.now() + heartbeatMs };
      this.heartbeats = heartbeats(heartbeatMs);
      this.heartbeats.add(this);
    });
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
