import type { Knex } from "knex";
import type { Db } from "../db/tx.js";
import type { QueueOptions } from "../wire/events.js";
import type { EventHub } from "./hub.js";
import type { EventQueue } from "./queue.js";

/** Who a queue is for and what they asked for. */
export interface QueueRequest {
  readonly userId: number;
  readonly realmId: number;
  readonly options: QueueOptions;
}

/**
 * /register's consistency protocol: a new queue and the state it starts from, such that
 * each change is either in the state or, as an event, in the queue; never both, never
 * neither. The queue is created, the in-memory sources captured (`capture`) and a
 * database snapshot pinned with no commit in between (inside the write lock, a short
 * step); the state is then read (`read`) from that snapshot and those sources with the
 * lock released. On failure the queue is dropped.
 */
export async function registerQueue<C, S>(
  db: Db,
  hub: EventHub,
  request: QueueRequest,
  capture: () => Promise<C>,
  read: (knex: Knex.Transaction, captured: C) => Promise<S>,
): Promise<{ queue: EventQueue; lastEventId: number; state: S }> {
  let queue: EventQueue | null = null;
  try {
    return await db.snapshotRead(
      async () => {
        await hub.prepareRegister();
        const captured = await capture();
        queue = hub.createQueue(request.userId, request.realmId, request.options);
        await hub.persist(queue);
        // As created: events that arrive while the state is read come after it.
        return { captured, queue, lastEventId: queue.lastEventId };
      },
      async (knex, { captured, queue, lastEventId }) => ({
        queue,
        lastEventId,
        state: await read(knex, captured),
      }),
    );
  } catch (err) {
    // The client never learns of the queue: drop it rather than leave it to idle out.
    if (queue) await hub.removeQueue(queue).catch(() => undefined);
    throw err;
  }
}
