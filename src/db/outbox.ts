import type { Knex } from "knex";
import type { ChatEvent, EventRecipients } from "../wire/events.js";

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
    await trx("event_outbox").insert({
      realm_id: realmId,
      event: JSON.stringify(event),
      recipients: recipientsToJson(recipients),
      created_at: now,
    });
  }
}

/** Recipients as stored: user IDs, or [user ID, per-user fields] pairs. */
export function recipientsToJson(recipients: EventRecipients): string {
  return JSON.stringify(
    recipients instanceof Map ? [...recipients.entries()] : [...(recipients as Iterable<number>)],
  );
}

/** Recipients as recipientsToJson stored them. */
export function recipientsFromJson(text: string): EventRecipients {
  const list = JSON.parse(text) as Array<number | [number, Record<string, unknown>]>;
  return list.every((entry) => typeof entry === "number")
    ? list
    : new Map(list as Array<[number, Record<string, unknown>]>);
}
