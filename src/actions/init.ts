import { hashPassword } from "../lib/passwords.js";
import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { badRequest } from "../errors.js";
import { isValidEmail } from "../lib/emails.js";
import { ROLE } from "../world/roles.js";
import type { ChannelRow } from "../db/channel-rows.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { doIssueApiKey } from "./api-keys.js";
import { doCreateChannelRequest } from "./channel-create.js";
import { sendBotChannelMessage } from "./channel-notices.js";
import { doCreateRealm } from "./realm.js";
import { ensureSystemBots } from "./system-bots.js";
import { validateFullName } from "../lib/user-validation.js";
import { doCreateUser } from "./user-create.js";
import { doSendInitialDirectMessages } from "./welcome-bot.js";

export interface InitInput {
  realmName: string;
  ownerEmail: string;
  ownerName: string;
  ownerPassword: string;
}

export interface InitResult {
  realm_url: string;
  email: string;
  user_id: number;
  api_key: string;
}

/** The channel every new organization starts with, as Zulip's #general. */
export const DEFAULT_CHANNEL = {
  name: "general",
  description: "Everyone is added to this channel by default. Welcome!",
  welcomeTopic: "welcome",
};

/** The Notification Bot's first message in #general (Zulip renders each newline as a line break). */
export function welcomeMessage(realmName: string, url: string): string {
  return [
    `Welcome to ${realmName}! This is #**${DEFAULT_CHANNEL.name}**, the channel every new member joins.`,
    "Every message goes to a topic: start a new topic for each new subject, and conversations stay easy to follow.",
    `To connect the Zulip mobile app, zulip-terminal, the python bindings or a bot, see ${url}.`,
  ].join("\n\n");
}

/**
 * The organization's first channel: public, a default channel for new users, the owner
 * subscribed, where new channels are announced, with a welcome from the Notification Bot.
 * Created through the API's channel-creation action.
 */
async function doCreateDefaultChannel(app: App, tx: Tx, owner: UserRow, realmName: string): Promise<void> {
  const channelId = await doCreateChannelRequest(app, tx, owner, {
    name: DEFAULT_CHANNEL.name,
    description: DEFAULT_CHANNEL.description,
    subscribers: [owner.id],
    announce: false,
    creation: { invite_only: false, is_web_public: false, is_default_stream: true, groups: {} },
  });
  await tx
    .knex("realms")
    .where({ id: owner.realm_id })
    .update({ new_stream_announcements_stream_id: channelId });
  tx.afterCommit(() => app.realms.invalidate(owner.realm_id));
  const channel = (await tx.knex<ChannelRow>("streams").where({ id: channelId }).first())!;
  await sendBotChannelMessage(
    app,
    tx,
    channel,
    DEFAULT_CHANNEL.welcomeTopic,
    welcomeMessage(realmName, realmUrl(app.config)),
  );
}

export const MIN_PASSWORD_LENGTH = 6;

export function validatePassword(password: string): string {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest(`Password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  }
  return password;
}

export async function realmExists(app: App): Promise<boolean> {
  return (await app.knex("realms").first("id")) !== undefined;
}

/**
 * Creates the server's realm, its system groups and first owner (who holds the
 * server-level can_create_users and can_change_user_emails), the default channel, and
 * the owner's API key, in one transaction.
 */
export async function checkInitRealm(app: App, input: InitInput): Promise<InitResult> {
  const email = input.ownerEmail.trim();
  if (!isValidEmail(email)) throw badRequest(`Invalid email '${email}'`);
  const fullName = validateFullName(input.ownerName);
  const passwordHash = await hashPassword(validatePassword(input.ownerPassword), app.scrypt);
  const result = await app.db.transaction(async (tx) => {
    if (await tx.knex("realms").first("id")) {
      throw badRequest("A realm already exists in this data directory.");
    }
    const realmId = await doCreateRealm(tx, { name: input.realmName });
    const owner = await doCreateUser(app, tx, {
      realmId,
      email,
      fullName,
      passwordHash,
      role: ROLE.OWNER,
      canCreateUsers: true,
      canChangeUserEmails: true,
    });
    // After the owner, who stays user 1 of a new installation.
    await ensureSystemBots(app, tx, realmId);
    await doCreateDefaultChannel(app, tx, owner, input.realmName.trim());
    // The organization's creator is its first new person (Zulip's realm_creation path).
    await doSendInitialDirectMessages(app, tx, owner);
    const apiKey = await doIssueApiKey(app, tx, owner.id, "chatd init");
    return { realm_url: realmUrl(app.config), email: owner.email, user_id: owner.id, api_key: apiKey };
  });
  app.realms.forgetPrimaryRealm();
  return result;
}
