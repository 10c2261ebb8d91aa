import { signal } from "@preact/signals-core";
import { ApiError, NetworkError } from "../api/errors.js";
import type { ServerEvent } from "../api/types.js";
import type { ClientState } from "../model/client-state.js";
import { applyEvent } from "../model/events.js";
import { liveApi, type LiveApi } from "./api.js";

export type Connection = "connecting" | "live" | "reconnecting";

/** What the web client registers for: every event type, rendered HTML, modern shapes. */
export const REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  include_subscribers: false,
  client_capabilities: {
    notification_settings_null: true,
    bulk_message_deletion: true,
    user_avatar_url_field_optional: false,
    stream_typing_notifications: true,
    user_settings_object: true,
    empty_topic_name: true,
    simplified_presence_events: true,
    archived_channels: true,
    linkifier_url_template: true,
  },
};

/** A poll with no answer this long after the server's heartbeat is given up (a laptop slept, a proxy dropped it). */
const POLL_TIMEOUT_MS = 90_000;
const MAX_BACKOFF_MS = 30_000;

/** The queue's clock and dice: the real ones, or a test's. */
export interface QueueTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  random(): number;
}

const REAL_TIMERS: QueueTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: () => Math.random(),
};

/**
 * The client's one event queue: registers, then long-polls GET /json/events and applies
 * each event. It survives what a day at a laptop brings: a server restart (the queue is
 * restored, or the poll fails and is retried), sleep (a poll that never answers is
 * abandoned; a queue the server dropped meanwhile is registered anew, and the views
 * refetch their messages), and a dropped network (retried with backoff, at once when the
 * browser says it is online again).
 */
export class LiveQueue {
  readonly connection = signal<Connection>("connecting");
  private queueId = "";
  private lastEventId = -1;
  private stopped = false;
  private backoffMs = 0;
  private poll: AbortController | null = null;
  /** The poll under way was abandoned on purpose (repoll): poll again at once. */
  private repolling = false;
  private wake: (() => void) | null = null;
  /** Called with each batch of events once applied (notifications, title). */
  onEvents: (events: readonly ServerEvent[]) => void = () => {};
  /**
   * An event that could not be applied (a bug, or a shape the client does not know): it is
   * skipped and the others are applied, as Zulip's web app does. Reported to the browser's
   * error handling by default.
   */
  onError: (err: unknown, event: ServerEvent) => void = (err) =>
    (globalThis as { reportError?: (err: unknown) => void }).reportError?.(err);

  constructor(
    private readonly state: ClientState,
    private readonly api: Pick<LiveApi, "register" | "events"> = liveApi(),
    private readonly timers: QueueTimers = REAL_TIMERS,
  ) {}

  /** Registers and loads the state; the first call's failure is the caller's to show. */
  async start(): Promise<void> {
    await this.registerAnew();
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.poll?.abort();
    this.wake?.();
  }

  /** Retry now rather than after the backoff (the browser is online again, the tab is visible). */
  retryNow(): void {
    this.backoffMs = 0;
    this.wake?.();
  }

  get id(): string {
    return this.queueId;
  }

  private async registerAnew(): Promise<void> {
    const state = await this.api.register(REGISTER_PARAMS);
    if (this.stopped) return;
    this.queueId = state.queue_id;
    this.lastEventId = state.last_event_id;
    this.state.load(state);
    this.connection.value = "live";
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let events: ServerEvent[];
      try {
        events = await this.fetchEvents();
      } catch (err) {
        if (this.stopped) return;
        if (this.repolling) {
          this.repolling = false;
          continue;
        }
        if (err instanceof ApiError && err.code === "BAD_EVENT_QUEUE_ID") {
          this.connection.value = "reconnecting";
          await this.retrying(() => this.registerAnew());
          continue;
        }
        this.connection.value = "reconnecting";
        const retryAfter = err instanceof ApiError ? Number(err.data["retry-after"] ?? 0) * 1000 : 0;
        await this.sleep(Math.max(retryAfter, this.nextBackoff()));
        continue;
      }
      // Stopped while the answer was on its way: nothing more is applied.
      if (this.stopped) return;
      this.backoffMs = 0;
      this.connection.value = "live";
      this.apply(events);
    }
  }

  /** Applies a batch in order, each event on its own: one that fails does not hold up the rest. */
  private apply(events: readonly ServerEvent[]): void {
    for (const event of events) {
      this.lastEventId = Math.max(this.lastEventId, event.id);
      try {
        applyEvent(this.state, event);
      } catch (err) {
        this.onError(err, event);
      }
    }
    if (events.length === 0) return;
    try {
      this.onEvents(events);
    } catch (err) {
      this.onError(err, events[events.length - 1]!);
    }
  }

  private async fetchEvents(): Promise<ServerEvent[]> {
    const poll = (this.poll = new AbortController());
    const timer = this.timers.setTimeout(() => poll.abort(), POLL_TIMEOUT_MS);
    try {
      const answer = await this.api.events(
        { queue_id: this.queueId, last_event_id: this.lastEventId },
        poll.signal,
      );
      return answer.events;
    } finally {
      this.timers.clearTimeout(timer);
      this.poll = null;
    }
  }

  /** Repeats an action until it succeeds (a register while the server is down). */
  private async retrying(action: () => Promise<void>): Promise<void> {
    while (!this.stopped) {
      try {
        await action();
        this.backoffMs = 0;
        return;
      } catch (err) {
        if (!(err instanceof NetworkError || err instanceof ApiError)) throw err;
        await this.sleep(this.nextBackoff());
      }
    }
  }

  private nextBackoff(): number {
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs === 0 ? 1000 : this.backoffMs * 2);
    // Jitter: every client of a restarted server does not come back in the same second.
    return this.backoffMs * (0.75 + this.timers.random() * 0.5);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.timers.clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = this.timers.setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** A poll under way is abandoned and made again at once (after sleep, the old one may never answer). */
  repoll(): void {
    if (!this.poll) return;
    this.repolling = true;
    this.poll.abort();
  }
}
