import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { doSendDirectMessage } from "./message-send.js";
import { WELCOME_BOT, systemBot } from "./system-bots.js";

/**
 * POST /realm/test_welcome_bot_custom_message: Welcome Bot sends the administrator a
 * direct message with the text given (not the stored setting), so they see what new
 * users would (administrators only: the endpoint checks). Only that message is sent, as
 * in Zulip; returns its ID.
 */
export async function checkSendTestWelcomeBotMessage(
  app: App,
  admin: UserRow,
  text: string,
): Promise<number> {
  if (text.length === 0) throw badRequest("Message must not be empty");
  return app.db.transaction(async (tx) => {
    const bot = await systemBot(app, tx, admin.realm_id, WELCOME_BOT);
    return doSendDirectMessage(app, tx, { sender: bot, recipient: admin, content: text });
  });
}
