import type { Knex } from "knex";
import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import type { UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import { resourceNotFound } from "../errors.js";
import { accessMessage, accessibleMessage } from "../lib/message-access.js";
import { reminderEvents } from "../presenters/events/user-data.js";
import {
  DELIVERY_TYPE,
  presentReminder,
  type ScheduledMessageRow,
} from "../presenters/scheduled-messages.js";
import type { ChannelWorld } from "../permissions/channel-access.js";
import { normalizeReminderNote, reminderContent, type RemindedMessage } from "./reminder-content.js";
import { prepareMessage } from "./message-send.js";
import { validateDeliveryTime, noteDue } from "./scheduled-messages.js";

/**
 * Message reminders (Zulip's zerver/actions/reminders.py): a direct message to oneself,
 * sent by the Notification Bot at the chosen time, quoting the message as it is then.
 * Stored with scheduled messages (delivery type "remind").
 */

async function remindedMessage(knex: Knex, messageId: number): Promise<RemindedMessage> {
  return knex("messages")
    .where({ id: messageId })
    .first<RemindedMessage>("id", "sender_id", "recipient_id", "stream_id", "topic", "content");
}

/**
 * The reminder's text now, if the user may still read the message (undefined if not:
 * the text written when the reminder was made is sent instead).
 */
export async function currentReminderContent(
  app: App,
  world: ChannelWorld,
  user: UserRow,
  reminder: ScheduledMessageRow,
): Promise<string | undefined> {
  const scope = { knex: app.knex, world, user };
  const accessed = await accessibleMessage(scope, reminder.reminder_target_message_id!);
  if (!accessed) return undefined;
  const message = await remindedMessage(app.knex, accessed.id);
  return reminderContent(app.config, app.knex, world, message, reminder.reminder_note ?? "");
}

export interface ReminderRequest {
  messageId: number;
  deliverAt: number;
  note: string;
  client: string;
}

/** POST /reminders (Zulip's schedule_reminder_for_message); returns the reminder's ID. */
export async function checkCreateReminder(app: App, user: UserRow, req: ReminderRequest): Promise<number> {
  validateDeliveryTime(app, req.deliverAt);
  const world = await loadWorld(app, app.knex, user.realm_id);
  const accessed = await accessMessage({ knex: app.knex, world, user }, req.messageId);
  const note = req.note ? normalizeReminderNote(req.note) : "";
  const content = await reminderContent(
    app.config,
    app.knex,
    world,
    await remindedMessage(app.knex, accessed.id),
    note,
  );
  // Checked and rendered as a message to oneself; the Notification Bot sends it.
  const prepared = await prepareMessage(app, user, {
    type: "private",
    to: `[${user.id}]`,
    content,
    client: req.client,
  });
  return app.db.transaction(async (tx) => {
    const fields = {
      realm_id: user.realm_id,
      sender_id: user.id,
      delivery_type: DELIVERY_TYPE.REMIND,
      recipient_type: "private" as const,
      stream_id: null,
      to_user_ids: `[${user.id}]`,
      topic: "",
      content: prepared.content,
      rendered_content: prepared.rendered.html,
      sending_client: req.client,
      read_by_sender: false,
      scheduled_timestamp: req.deliverAt,
      delivered: false,
      delivered_message_id: null,
      failed: false,
      failure_message: null,
      reminder_target_message_id: accessed.id,
      reminder_note: note,
    };
    const id = await insertReturningId(tx.knex, "scheduled_messages", fields);
    const row: ScheduledMessageRow = { id, ...fields };
    tx.sendEventOnCommit(user.realm_id, reminderEvents.add(presentReminder(row)), [user.id]);
    noteDue(app, tx, row);
    return id;
  });
}

/** DELETE /reminders/{reminder_id}: it will not be sent. */
export async function checkDeleteReminder(app: App, user: UserRow, reminderId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const row = await tx
      .knex<ScheduledMessageRow>("scheduled_messages")
      .where({ id: reminderId, sender_id: user.id, delivery_type: DELIVERY_TYPE.REMIND })
      .first();
    if (!row) throw resourceNotFound("Reminder does not exist");
    await tx.knex("scheduled_messages").where({ id: row.id }).delete();
    tx.sendEventOnCommit(user.realm_id, reminderEvents.remove(row.id), [user.id]);
  });
}
