import { botConfigs, botServices } from "../lib/bots.js";
import { administeredBots } from "../permissions/bots.js";
import { presentBot } from "../presenters/bots.js";
import type { StateContext } from "./state-context.js";

/**
 * The `realm_bot` fetch type: realm_bots, the bots the user administers (every bot for
 * an administrator, else their own), deactivated ones included, as Zulip's
 * get_owned_bot_dicts.
 */
export async function fetchRealmBotsState(ctx: StateContext): Promise<Record<string, unknown>> {
  const bots = administeredBots(ctx.realm, ctx.user);
  if (bots.length === 0) return { realm_bots: [] };
  const ids = bots.map((bot) => bot.id);
  const channels = await ctx.app.channels.get(ctx.knex, ctx.realm.id);
  const services = await botServices(ctx.knex, ids);
  const configs = await botConfigs(ctx.knex, ids);
  return {
    realm_bots: bots.map((bot) =>
      presentBot(bot, { channels, services: services.get(bot.id) ?? [], config: configs.get(bot.id) }),
    ),
  };
}
