import { checkRemoveBotStorage, checkSetBotStorage } from "../actions/bot-storage.js";
import { defineEndpoint } from "../http/endpoint.js";
import { readBotStorage } from "../lib/bot-storage.js";
import { validate, p } from "../params.js";

/**
 * Bot storage (python zulip_bots' bot_handler.storage): string entries keyed by the
 * caller, as in Zulip, which has no bots-only rule: a person has storage of their own
 * and never reaches a bot's (their own bots' included).
 */

export const updateBotStorage = defineEndpoint({
  method: "PUT",
  path: "/bot_storage",
  auth: "user",
  params: { storage: p.json(validate.record(validate.str())) },
  async handler({ app, user, params }) {
    await checkSetBotStorage(app, user, Object.entries(params.storage));
    return {};
  },
});

export const getBotStorage = defineEndpoint({
  method: "GET",
  path: "/bot_storage",
  auth: "user",
  params: { keys: p.listOf(validate.str()).optional() },
  async handler({ app, user, params }) {
    return { storage: await readBotStorage(app.knex, user.id, params.keys ?? null) };
  },
});

export const removeBotStorage = defineEndpoint({
  method: "DELETE",
  path: "/bot_storage",
  auth: "user",
  params: { keys: p.listOf(validate.str()).optional() },
  async handler({ app, user, params }) {
    await checkRemoveBotStorage(app, user, params.keys ?? null);
    return {};
  },
});
