import { applyInvalidations, type ProcessCaches } from "../cache/invalidations.js";
import type { Invalidation, LogEntry } from "../db/event-log.js";
import type { EventSink } from "../db/tx.js";
import type { EventHub } from "./hub.js";
import type { LogApplier } from "./replication.js";
import type { ChatEvent, EventRecipients } from "../wire/events.js";

/**
 * Where a committed event goes in this process: the caches that follow events observe it,
 * then the hub delivers it to the queues. One process alone publishes each transaction's
 * events straight here (the Db's sink); each of several applies the event log's entries
 * here, its own commits' included, in log order (events/replication.ts).
 */
export class EventFanout implements EventSink, LogApplier {
  constructor(
    private readonly hub: EventHub,
    private readonly caches: ProcessCaches,
  ) {}

  /** A committed transaction's event, or an ephemeral one, in one process alone. */
  send(realmId: number, event: ChatEvent, recipients: EventRecipients): void {
    // Recipients may be a one-shot iterator; each consumer needs them.
    const listed = recipients instanceof Map ? recipients : [...(recipients as Iterable<number>)];
    this.fanOut(realmId, event, listed);
  }

  /** An event log entry's event (several processes). */
  event(entry: LogEntry): void {
    // Read from the log: a list or a map already, never a one-shot iterator.
    this.fanOut(entry.realmId, entry.event!, entry.recipients, entry.id);
  }

  /** Invalidations another process made (several processes). */
  invalidate(invalidations: readonly Invalidation[]): void {
    applyInvalidations(this.caches, invalidations);
  }

  private fanOut(realmId: number, event: ChatEvent, recipients: EventRecipients, logId?: number): void {
    this.caches.userState.observe(realmId, event, recipients);
    this.caches.sendRules.observe(realmId, event);
    if (logId === undefined) this.hub.send(realmId, event, recipients);
    else this.hub.sendLogged(logId, realmId, event, recipients);
  }
}
