import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import { emailHost } from "../config.js";
import type { UserRow } from "../db/rows.js";
import { badRequest, insufficientPermission } from "../errors.js";
import { generateApiKey } from "../lib/api-keys.js";
import { isValidEmail } from "../lib/emails.js";
import { allowedBotTypes, mayCreateBot } from "../permissions/bots.js";
import { accessChannelByName } from "../permissions/channel-access.js";
import { requireMemberOrAdmin } from "../permissions/user-groups.js";
import { ALLOWED_INTERFACE_TYPES, BOT_TYPE } from "../world/bots.js";
import { doIssueApiKey } from "./api-keys.js";
import { validateBotConfig, doSetBotConfig } from "./bot-config.js";
import { sendBotAdded } from "./bot-events.js";
import { validateBotNameAvailable, validateFullName, validateNameAvailable } from "../lib/user-validation.js";
import { doCreateUser } from "./user-create.js";

export interface CreateBotInput {
  fullName: string;
  shortName: string;
  botType: number;
  /** Outgoing webhooks: where messages that trigger the bot are POSTed. */
  payloadUrl: string;
  interfaceType: number;
  serviceName?: string;
  configData: Readonly<Record<string, string>>;
  /** Channel names. */
  defaultSendingStream?: string;
  defaultEventsRegisterStream?: string;
  defaultAllPublicStreams?: boolean;
}

export interface CreatedBot {
  bot: UserRow;
  /** The bot's API key: shown this once (only its digest is kept). */
  apiKey: string;
}

/**
 * POST /bots (and `chatd bot create`, on behalf of the bot's owner): checks in Zulip's
 * order (add_bot_backend), then creates the bot user, its API key, its outgoing
 * webhook service or integration configuration, and tells those who administer it.
 * The bot's email is <short_name>-bot@<the realm's host>.
 */
export async function checkCreateBot(
  app: App,
  owner: UserRow,
  input: CreateBotInput,
  keyLabel: string,
): Promise<CreatedBot> {
  requireMemberOrAdmin(owner);
  const shortName = input.shortName.trim();
  if (shortName === "") throw badRequest("Bad name or username");
  const serviceName =
    input.botType === BOT_TYPE.INCOMING_WEBHOOK ? input.serviceName : input.serviceName || shortName;
  const fullName = validateFullName(input.fullName);
  const email = `${shortName}-bot@${emailHost(app.config)}`;
  // The host may be an IP address, which email syntax does not allow: check the local part.
  if (!isValidEmail(`${shortName}-bot@example.com`)) throw badRequest("Bad name or username");
  if (input.botType === BOT_TYPE.EMBEDDED) throw badRequest("Embedded bots are not enabled.");

  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, owner.realm_id);
    const snapshot = world.realm;
    validateNameAvailable(snapshot, fullName);
    if (snapshot.userByEmail(email)) throw badRequest("Email is already in use.");
    validateBotNameAvailable(snapshot, fullName);
    if (!mayCreateBot(snapshot, owner, input.botType)) throw insufficientPermission();
    if (!allowedBotTypes(snapshot, owner).includes(input.botType)) throw badRequest("Invalid bot type");
    if (!ALLOWED_INTERFACE_TYPES.includes(input.interfaceType)) throw badRequest("Invalid interface type");
    const sending =
      input.defaultSendingStream === undefined
        ? null
        : accessChannelByName(world, owner, input.defaultSendingStream);
    const registering =
      input.defaultEventsRegisterStream === undefined
        ? null
        : accessChannelByName(world, owner, input.defaultEventsRegisterStream);
    if (serviceName) validateBotConfig(input.botType, serviceName, { ...input.configData });

    const bot = await doCreateUser(app, tx, {
      realmId: owner.realm_id,
      email,
      fullName,
      isBot: true,
      botType: input.botType,
      botOwnerId: owner.id,
      defaultSendingStreamId: sending?.id ?? null,
      defaultEventsRegisterStreamId: registering?.id ?? null,
      defaultAllPublicStreams: input.defaultAllPublicStreams ?? false,
    });
    const apiKey = await doIssueApiKey(app, tx, bot.id, keyLabel);
    if (input.botType === BOT_TYPE.OUTGOING_WEBHOOK) {
      await tx.knex("bot_services").insert({
        bot_user_id: bot.id,
        name: serviceName!,
        base_url: input.payloadUrl,
        token: generateApiKey(),
        interface: input.interfaceType,
      });
    }
    if (input.botType === BOT_TYPE.INCOMING_WEBHOOK) {
      await doSetBotConfig(tx, bot.id, [
        ...(serviceName ? [["integration_id", serviceName] as const] : []),
        ...Object.entries(input.configData),
      ]);
    }
    await sendBotAdded(app, tx, bot);
    return { bot, apiKey };
  });
}
