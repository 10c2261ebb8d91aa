import type { Knex } from "knex";
import {
  DELIVERY_TYPE,
  presentReminder,
  presentScheduledMessage,
  type ScheduledMessageRow,
} from "../presenters/scheduled-messages.js";
import type { StateContext } from "./state-context.js";

/** A user's undelivered items of one kind (failed ones included), soonest first. */
function undelivered(knex: Knex, userId: number, deliveryType: number) {
  return knex<ScheduledMessageRow>("scheduled_messages")
    .where({ sender_id: userId, delivery_type: deliveryType, delivered: false })
    .orderBy([{ column: "scheduled_timestamp" }, { column: "id" }]);
}

/** GET /scheduled_messages (Zulip's get_undelivered_scheduled_messages). */
export async function scheduledMessagesOf(knex: Knex, userId: number) {
  return (await undelivered(knex, userId, DELIVERY_TYPE.SEND_LATER)).map(presentScheduledMessage);
}

/** GET /reminders (Zulip's get_undelivered_reminders). */
export async function remindersOf(knex: Knex, userId: number) {
  return (await undelivered(knex, userId, DELIVERY_TYPE.REMIND)).map(presentReminder);
}

export async function fetchScheduledMessagesState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { scheduled_messages: await scheduledMessagesOf(ctx.knex, ctx.user.id) };
}

export async function fetchRemindersState(ctx: StateContext): Promise<Record<string, unknown>> {
  return { reminders: await remindersOf(ctx.knex, ctx.user.id) };
}
