import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import { badRequest } from "../errors.js";
import { accessMessageToChange } from "../lib/message-access.js";
import { messageAudience } from "../lib/message-audience.js";
import { validatePollData, validateTodoData, WIDGET_MSG_TYPE, widgetTypeOf } from "../lib/widgets.js";
import { submessageEvent } from "../presenters/events/messages.js";
import type { RealmSnapshot } from "../world/realm.js";

export interface SubmessageRequest {
  messageId: number;
  msgType: string;
  content: string;
}

/**
 * POST /submessage (Zulip's process_submessage): a reader adds to a message's widget (a
 * poll vote or option, a to-do task). Only the message's sender may start a
 * subconversation; poll and to-do data are checked as Zulip does. Everyone who can see
 * the message gets a submessage event.
 */
export function checkAddSubmessage(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  request: SubmessageRequest,
): Promise<void> {
  return app.db.transaction(async (tx) => {
    const world = { realm, channels: await app.channels.get(tx.knex, realm.id) };
    const message = await accessMessageToChange({ knex: tx.knex, world, user }, request.messageId);
    const existing = await tx
      .knex("submessages")
      .where({ message_id: message.id })
      .orderBy("id")
      .select<Array<{ sender_id: number; msg_type: string; content: string }>>(
        "sender_id",
        "msg_type",
        "content",
      );
    if (user.id !== message.sender_id && !existing.some((s) => s.sender_id === message.sender_id)) {
      throw badRequest("You cannot attach a submessage to this message.");
    }
    let data: unknown;
    try {
      data = JSON.parse(request.content);
    } catch {
      throw badRequest("Invalid json for submessage");
    }
    const isWidgetAuthor = message.sender_id === user.id;
    const widgetType = widgetTypeOf(existing.find((s) => s.msg_type === WIDGET_MSG_TYPE)?.content);
    if (widgetType === "poll") validatePollData(data, isWidgetAuthor);
    if (widgetType === "todo") validateTodoData(data, isWidgetAuthor);
    const row = {
      message_id: message.id,
      sender_id: user.id,
      msg_type: request.msgType,
      content: request.content,
    };
    const id = await insertReturningId(tx.knex, "submessages", row);
    const audience = await messageAudience(tx.knex, world, message);
    tx.sendEventOnCommit(realm.id, submessageEvent({ id, ...row }), audience);
  });
}
