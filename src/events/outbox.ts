import type { Knex } from "knex";
import type { Db } from "../db/tx.js";
import { recipientsFromJson } from "../db/outbox.js";
import type { ChatEvent } from "../wire/events.js";

/** Publishes what admin commands wrote to the outbox (see db/outbox.ts). */

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
      tx.sendEventOnCommit(
        row.realm_id,
        JSON.parse(row.event) as ChatEvent,
        recipientsFromJson(row.recipients),
      );
    }
    return rows.length;
  });
}

/** Drains the outbox when it holds anything: a read first, so a quiet outbox costs no write. */
export async function drainOutboxIfAny(db: Db, reader: Knex): Promise<number> {
  const waiting = await reader("event_outbox").first<{ id: number } | undefined>("id");
  return waiting ? drainOutbox(db) : 0;
}
