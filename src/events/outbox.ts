import type { Knex } from "knex";
import type { Db } from "../db/tx.js";
import type { ChatEvent, EventRecipients } from "./types.js";

export type PendingEvent = readonly [realmId: number, event: ChatEvent, recipients: EventRecipients];

/**
 * The transactional outbox. A process that serves no event queues (an admin command)
 * writes its events here in the same transaction as its change; the server publishes
 * them when it notices the commit. So a change made from the CLI reaches clients exactly
 * as one made through the API, or not at all if the change rolled back.
 */
export async function writeOutbox(
  trx: Knex.Transaction,
  events: readonly PendingEvent[],
  now: number,
): Promise<void> {
  for (const [realmId, event, recipients] of events) {
    const list =
      recipients instanceof Map ? [...recipients.entries()] : [...(recipients as Iterable<number>)];
    await trx("event_outbox").insert({
      realm_id: realmId,
      event: JSON.stringify(event),
      recipients: JSON.stringify(list),
      created_at: now,
    });
  }
}

interface OutboxRow {
  id: number;
  realm_id: number;
  event: string;
  recipients: string;
}

/** Publishes and removes the outbox's events, in commit order. Returns how many. */
export function drainOutbox(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .knex("event_outbox")
      .orderBy("id")
      .select<OutboxRow[]>("id", "realm_id", "event", "recipients");
    if (rows.length === 0) return 0;
    await tx.knex("event_outbox").where("id", "<=", rows.at(-1)!.id).delete();
    for (const row of rows) {
      const list = JSON.parse(row.recipients) as Array<number | [number, Record<string, unknown>]>;
      const recipients: EventRecipients = list.every((entry) => typeof entry === "number")
        ? list
        : new Map(list as Array<[number, Record<string, unknown>]>);
      tx.sendEventOnCommit(row.realm_id, JSON.parse(row.event) as ChatEvent, recipients);
    }
    return rows.length;
  });
}
