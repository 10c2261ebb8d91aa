import type { Knex } from "knex";
import type { BotServiceRow } from "../db/rows.js";
import { badRequest } from "../errors.js";

/** Bots' services and configuration, and the checks POST and PATCH /bots share. */

/** Each bot's services (outgoing webhooks have exactly one), by bot ID. */
export async function botServices(
  knex: Knex,
  botIds: readonly number[],
): Promise<Map<number, BotServiceRow[]>> {
  const byBot = new Map<number, BotServiceRow[]>();
  if (botIds.length === 0) return byBot;
  const rows = await knex<BotServiceRow>("bot_services").whereIn("bot_user_id", botIds).orderBy("id");
  for (const row of rows) {
    const list = byBot.get(row.bot_user_id);
    if (list) list.push(row);
    else byBot.set(row.bot_user_id, [row]);
  }
  return byBot;
}

/** Each bot's configuration (Zulip's get_bot_configs), by bot ID; bots without any are absent. */
export async function botConfigs(
  knex: Knex,
  botIds: readonly number[],
): Promise<Map<number, Record<string, string>>> {
  const byBot = new Map<number, Record<string, string>>();
  if (botIds.length === 0) return byBot;
  const rows = await knex("bot_config_data")
    .whereIn("bot_user_id", botIds)
    .orderBy(["bot_user_id", "key"])
    .select<Array<{ bot_user_id: number; key: string; value: string }>>("bot_user_id", "key", "value");
  for (const row of rows) {
    let config = byBot.get(row.bot_user_id);
    if (!config) byBot.set(row.bot_user_id, (config = {}));
    config[row.key] = row.value;
  }
  return byBot;
}

/** Zulip's BOT_CONFIG_SIZE_LIMIT: characters of all a bot's configuration keys and values. */
export const BOT_CONFIG_SIZE_LIMIT = 10_000;

// Django's URLValidator (what Zulip's check_url uses), for http and https only.
const UL = "\\u00a1-\\uffff";
const IPV4 =
  "(?:0|25[0-5]|2[0-4][0-9]|1[0-9]?[0-9]?|[1-9][0-9]?)(?:\\.(?:0|25[0-5]|2[0-4][0-9]|1[0-9]?[0-9]?|[1-9][0-9]?)){3}";
const IPV6 = "\\[[0-9a-f:.]+\\]";
const HOSTNAME = `[a-z${UL}0-9](?:[a-z${UL}0-9-]{0,61}[a-z${UL}0-9])?`;
const DOMAIN = `(?:\\.(?!-)[a-z${UL}0-9-]{1,63}(?<!-))*`;
const TLD = `\\.(?!-)(?:[a-z${UL}-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)\\.?`;
const URL_PATTERN = new RegExp(
  `^https?://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?(?:${IPV4}|${IPV6}|${HOSTNAME}${DOMAIN}${TLD}|localhost)` +
    `(?::([0-9]{1,5}))?(?:[/?#][^\\s]*)?$`,
  "i",
);

/**
 * An outgoing webhook's URL: http or https with a proper host (a dotted domain name,
 * localhost, or an IP address), as Django validates URLs; anything else is refused
 * with Zulip's message. Whether the host may be reached is decided when delivering.
 */
export function validateServiceUrl(value: string, name: string): string {
  const match = value.length <= 2048 ? URL_PATTERN.exec(value) : null;
  const port = match?.[1];
  if (!match || (port !== undefined && Number(port) > 65535)) {
    throw badRequest(`Invalid ${name}: Value error, Not a URL`);
  }
  if (match[0].includes("[")) {
    // An IPv6 literal must be a real address.
    try {
      new URL(value);
    } catch {
      throw badRequest(`Invalid ${name}: Value error, Not a URL`);
    }
  }
  return value;
}
