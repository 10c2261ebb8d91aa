import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { doSendDirectMessage } from "./message-send.js";
import { WELCOME_BOT, systemBot } from "./system-bots.js";

/**
 * Welcome Bot's direct messages to a new person (Zulip's onboarding.py, English as Zulip's
 * source strings): its greeting, then the organization's own text, if any, as a second
 * message. Zulip's greeting links pages of its help center (/help/getting-started-with-zulip,
 * /help/moving-to-zulip for administrators, a tour video), which chatd does not serve; it
 * links the page chatd serves instead, /help/clients (server/clients-page.ts: how to connect
 * the mobile, desktop and terminal apps), and the rest of Zulip's wording stays.
 */
export function initialDirectMessage(): string {
  return (
    "Hello, and welcome to Zulip!👋\n\n" +
    "To chat from the Zulip mobile or desktop apps or a terminal, check out " +
    "[how to connect them](/help/clients)!"
  );
}

/** The organization's welcome text, as Welcome Bot frames it (quoted: the administrators' words). */
export function customWelcomeMessage(text: string): string {
  return (
    "The administrators for this organization would also like to share the following information:\n" +
    `\`\`\`\` quote\n${text}\n\`\`\`\``
  );
}

/**
 * Zulip's send_initial_direct_messages_to_user, the last step of process_new_human_user:
 * Welcome Bot's greeting, starred and unread for the new person, then the realm's
 * welcome_message_custom_text (nothing when it is empty). Neither sends a missed-message
 * email: they are meant to be read in the app (Zulip's disable_external_notifications).
 * People only: bots never get them (the caller creates a human).
 */
export async function doSendInitialDirectMessages(
  app: App,
  tx: Tx,
  user: UserRow,
): Promise<{ initialId: number; customId: number | null }> {
  const bot = await systemBot(app, tx, user.realm_id, WELCOME_BOT);
  const initialId = await doSendDirectMessage(app, tx, {
    sender: bot,
    recipient: user,
    content: initialDirectMessage(),
    starredFor: [user.id],
    disableExternalNotifications: true,
  });
  const realm = await tx
    .knex("realms")
    .where({ id: user.realm_id })
    .first<{ welcome_message_custom_text: string } | undefined>("welcome_message_custom_text");
  const text = realm?.welcome_message_custom_text ?? "";
  if (text === "") return { initialId, customId: null };
  const customId = await doSendDirectMessage(app, tx, {
    sender: bot,
    recipient: user,
    content: customWelcomeMessage(text),
    disableExternalNotifications: true,
  });
  return { initialId, customId };
}

/**
 * POST /realm/test_welcome_bot_custom_message: Welcome Bot sends the administrator the text
 * given (not the stored setting), framed as new users get it, so they see what new users
 * would (administrators only: the endpoint checks). Only that message is sent, as in Zulip;
 * returns its ID.
 */
export async function checkSendTestWelcomeBotMessage(
  app: App,
  admin: UserRow,
  text: string,
): Promise<number> {
  if (text.length === 0) throw badRequest("Message must not be empty");
  return app.db.transaction(async (tx) => {
    const bot = await systemBot(app, tx, admin.realm_id, WELCOME_BOT);
    return doSendDirectMessage(app, tx, {
      sender: bot,
      recipient: admin,
      content: customWelcomeMessage(text),
      disableExternalNotifications: true,
    });
  });
}
