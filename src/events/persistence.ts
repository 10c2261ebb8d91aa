import type { Knex } from "knex";
import type { Clock } from "../clock.js";
import type { QueueSnapshot } from "./queue.js";

/** Queues are saved on graceful shutdown and restored (then forgotten) on start. */
export async function saveQueues(knex: Knex, snapshots: QueueSnapshot[], clock: Clock): Promise<void> {
  const savedAt = Math.floor(clock.nowMs() / 1000);
  await knex.transaction(async (trx) => {
    await trx("event_queue_snapshots").delete();
    for (const snapshot of snapshots) {
      await trx("event_queue_snapshots").insert({
        queue_id: snapshot.id,
        user_id: snapshot.userId,
        data: JSON.stringify(snapshot),
        saved_at: savedAt,
      });
    }
  });
}

export async function loadSavedQueues(knex: Knex): Promise<QueueSnapshot[]> {
  return knex.transaction(async (trx) => {
    const rows = await trx("event_queue_snapshots").select<Array<{ data: string }>>("data");
    await trx("event_queue_snapshots").delete();
    return rows.map((row) => JSON.parse(row.data) as QueueSnapshot);
  });
}
