import type { Knex } from "knex";
import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import type { WireBot } from "../wire/records.js";
import { botConfigs, botServices } from "../lib/bots.js";
import { administeredBots } from "../permissions/bots.js";
import { presentBot } from "../presenters/bots.js";
import type { ChannelSnapshot } from "../world/channels.js";
import type { StateContext } from "./state-context.js";

/**
 * Bots' realm_bots records (their default channels, services and configuration), read
 * through `knex`: a transaction's, to see its own changes.
 */
export async function loadBotRecords(
  app: App,
  knex: Knex,
  realmId: number,
  bots: readonly UserRow[],
  /** Channels already read (a register's snapshot); else read through `knex`. */
  known?: ChannelSnapshot,
): Promise<WireBot[]> {
  if (bots.length === 0) return [];
  const ids = bots.map((bot) => bot.id);
  const channels = known ?? (await app.channels.get(knex, realmId));
  const services = await botServices(knex, ids);
  const configs = await botConfigs(knex, ids);
  return bots.map((bot) =>
    presentBot(bot, { channels, services: services.get(bot.id) ?? [], config: configs.get(bot.id) }),
  );
}

/**
 * The `realm_bot` fetch type: realm_bots, the bots the user administers (every bot for
 * an administrator, else their own), deactivated ones included, as Zulip's
 * get_owned_bot_dicts.
 */
export async function fetchRealmBotsState(ctx: StateContext): Promise<Record<string, unknown>> {
  const bots = administeredBots(ctx.realm, ctx.user);
  return { realm_bots: await loadBotRecords(ctx.app, ctx.knex, ctx.realm.id, bots, ctx.world.channels) };
}
