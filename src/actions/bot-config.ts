import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { BOT_CONFIG_SIZE_LIMIT } from "../lib/bots.js";
import { findIntegration } from "../lib/integrations.js";
import { codePointLength } from "../params.js";
import { BOT_TYPE } from "../world/bots.js";

/**
 * A bot's configuration entries (Zulip's set_bot_config): an incoming-webhook bot's
 * integration and its options. Refused when all of the bot's keys and values would
 * exceed BOT_CONFIG_SIZE_LIMIT characters.
 */
export async function doSetBotConfig(tx: Tx, botId: number, key: string, value: string): Promise<void> {
  const sizes = await tx
    .knex("bot_config_data")
    .where({ bot_user_id: botId })
    .select<Array<{ key: string; size: number }>>("key", tx.knex.raw("length(key) + length(value) as size"));
  const old = sizes.find((row) => row.key === key)?.size ?? 0;
  const total =
    sizes.reduce((sum, row) => sum + Number(row.size), 0) -
    old +
    codePointLength(key) +
    codePointLength(value);
  if (total > BOT_CONFIG_SIZE_LIMIT) {
    throw badRequest(
      `Cannot store configuration. Request would require ${total} characters. ` +
        `The current configuration size limit is ${BOT_CONFIG_SIZE_LIMIT} characters.`,
    );
  }
  await tx
    .knex("bot_config_data")
    .insert({ bot_user_id: botId, key, value })
    .onConflict(["bot_user_id", "key"])
    .merge(["value"]);
}

/** Python's repr of a set of strings, as Zulip's "Missing configuration parameters" shows it. */
const pythonSet = (keys: string[]) => `{${keys.map((k) => `'${k}'`).join(", ")}}`;

/**
 * Zulip's check_valid_bot_config for an incoming-webhook bot: the integration must
 * exist, and config_data must give each of its options a valid value.
 */
export function checkValidBotConfig(
  botType: number,
  serviceName: string,
  config: Record<string, string>,
): void {
  if (botType !== BOT_TYPE.INCOMING_WEBHOOK) return;
  const integration = findIntegration(serviceName);
  if (!integration) throw badRequest(`Invalid integration '${serviceName}'.`);
  const missing = integration.configOptions.map((o) => o.key).filter((key) => !Object.hasOwn(config, key));
  if (missing.length > 0) throw badRequest(`Missing configuration parameters: ${pythonSet(missing)}`);
  for (const option of integration.configOptions) {
    const value = config[option.key]!;
    const error = option.validate(option.key, value);
    if (error !== null) throw badRequest(`Invalid ${option.key} value ${value} (${error})`);
  }
}
