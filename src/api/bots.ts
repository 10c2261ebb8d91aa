import { checkCreateBot } from "../actions/bot-create.js";
import { checkDeactivateBot, checkRegenerateBotApiKey, checkUpdateBot } from "../actions/bots.js";
import { bool, int } from "../db/rows.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validateServiceUrl } from "../lib/bots.js";
import { validate, p, pathInt } from "../params.js";
import { requireMemberOrAdmin } from "../permissions/user-groups.js";
import { presentBotDefaults, presentOwnedBot } from "../presenters/bots.js";
import { avatarUrl } from "../presenters/users.js";
import { BOT_TYPE, SERVICE_INTERFACE } from "../world/bots.js";
import { roleParam } from "./users.js";

/** An outgoing webhook URL: JSON text of an http(s) URL, as Zulip's Json[check_url]. */
const serviceUrl = () => p.json((value, name) => validateServiceUrl(validate.str()(value, name), name));

/** Configuration: a JSON object of strings. */
const configData = () => p.json(validate.record(validate.str()));

/**
 * POST /bots: creates a bot owned by the caller (can_create_bots_group, or
 * can_create_write_only_bots_group for incoming webhooks). Embedded bots (type 4) are
 * refused: chatd runs none. Avatars cannot be uploaded (no file uploads).
 */
export const createBot = defineEndpoint({
  method: "POST",
  path: "/bots",
  auth: "user",
  issuesApiKey: true,
  params: {
    full_name: p.str(),
    short_name: p.str(),
    bot_type: p.int().default(BOT_TYPE.GENERIC),
    payload_url: serviceUrl().default(""),
    interface_type: p.int().default(SERVICE_INTERFACE.GENERIC),
    service_name: p.str().optional(),
    config_data: configData().optional(),
    default_sending_stream: p.str().optional(),
    default_events_register_stream: p.str().optional(),
    default_all_public_streams: p.bool().optional(),
  },
  async handler({ app, user, params, request }) {
    const { bot, apiKey } = await checkCreateBot(
      app,
      user,
      {
        fullName: params.full_name,
        shortName: params.short_name,
        botType: params.bot_type,
        payloadUrl: params.payload_url,
        interfaceType: params.interface_type,
        serviceName: params.service_name,
        configData: params.config_data ?? {},
        defaultSendingStream: params.default_sending_stream,
        defaultEventsRegisterStream: params.default_events_register_stream,
        defaultAllPublicStreams: params.default_all_public_streams,
      },
      request.clientName,
    );
    const channels = await app.channels.get(app.knex, bot.realm_id);
    return {
      user_id: bot.id,
      api_key: apiKey,
      avatar_url: avatarUrl(bot, false),
      ...presentBotDefaults(bot, channels),
    };
  },
});

/**
 * GET /bots: the caller's own active bots, oldest first, as Zulip's get_bots_backend
 * (administrators too: they see every bot in register's realm_bots). API keys are not
 * kept in clear, so `api_key` is empty.
 */
export const getBots = defineEndpoint({
  method: "GET",
  path: "/bots",
  auth: "user",
  params: {},
  async handler({ app, user, realm }) {
    requireMemberOrAdmin(user);
    const channels = await app.channels.get(app.knex, realm.id);
    const bots = [...realm.users]
      .filter((u) => bool(u.is_bot) && bool(u.is_active) && u.bot_owner_id === user.id)
      .sort((a, b) => int(a.date_joined) - int(b.date_joined) || a.id - b.id);
    return { bots: bots.map((bot) => presentOwnedBot(bot, channels)) };
  },
});

/** PATCH /bots/{bot_id}: for the bot's owner and administrators. */
export const updateBot = defineEndpoint({
  method: "PATCH",
  path: "/bots/:bot_id",
  auth: "user",
  params: {
    bot_id: pathInt(),
    full_name: p.str().optional(),
    role: roleParam.optional(),
    bot_owner_id: p.int().optional(),
    default_sending_stream: p.str().optional(),
    default_events_register_stream: p.str().optional(),
    default_all_public_streams: p.bool().optional(),
    service_payload_url: serviceUrl().optional(),
    service_interface: p.int().default(SERVICE_INTERFACE.GENERIC),
    config_data: configData().optional(),
  },
  async handler({ app, user, realm, params }) {
    const bot = await checkUpdateBot(app, user, realm.id, params.bot_id, {
      fullName: params.full_name,
      role: params.role,
      botOwnerId: params.bot_owner_id,
      defaultSendingStream: params.default_sending_stream,
      defaultEventsRegisterStream: params.default_events_register_stream,
      defaultAllPublicStreams: params.default_all_public_streams,
      servicePayloadUrl: params.service_payload_url,
      serviceInterface: params.service_interface,
      configData: params.config_data,
    });
    const after = await app.realms.get(app.knex, realm.id);
    const channels = await app.channels.get(app.knex, realm.id);
    const owner = bot.bot_owner_id === null ? undefined : after.user(bot.bot_owner_id);
    // Zulip echoes the service and configuration as given (null when not).
    return {
      full_name: bot.full_name,
      avatar_url: avatarUrl(bot, false),
      service_interface: params.service_interface,
      service_payload_url: params.service_payload_url ?? null,
      config_data: params.config_data ?? null,
      ...presentBotDefaults(bot, channels),
      ...(owner ? { bot_owner: owner.email } : {}),
    };
  },
});

/** DELETE /bots/{bot_id}: deactivates the bot (reactivate with POST /users/{id}/reactivate). */
export const deactivateBot = defineEndpoint({
  method: "DELETE",
  path: "/bots/:bot_id",
  auth: "user",
  params: { bot_id: pathInt() },
  async handler({ app, user, realm, params }) {
    await checkDeactivateBot(app, user, realm.id, params.bot_id);
    return {};
  },
});

export const regenerateBotApiKey = defineEndpoint({
  method: "POST",
  path: "/bots/:bot_id/api_key/regenerate",
  auth: "user",
  issuesApiKey: true,
  params: { bot_id: pathInt() },
  async handler({ app, user, realm, params, request }) {
    const { apiKey } = await checkRegenerateBotApiKey(app, user, realm.id, params.bot_id, request.clientName);
    return { api_key: apiKey };
  },
});
