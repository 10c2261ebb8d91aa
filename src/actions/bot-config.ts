import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { BOT_CONFIG_SIZE_LIMIT } from "../lib/bots.js";
import { entrySizes, upsertBotEntries, type BotEntries } from "../lib/bot-entries.js";
import { findIntegration } from "../lib/integrations.js";
import { BOT_TYPE } from "../world/bots.js";

/**
 * A bot's configuration entries (Zulip's set_bot_config, for each entry in turn): an
 * incoming-webhook bot's integration and its options. Refused, with the size at the
 * first entry that gets there, when all of the bot's keys and values would exceed
 * BOT_CONFIG_SIZE_LIMIT characters.
 */
export async function doSetBotConfig(tx: Tx, botId: number, entries: BotEntries): Promise<void> {
  const { after } = await entrySizes(tx.knex, "bot_config_data", botId, entries);
  const total = after.find((size) => size > BOT_CONFIG_SIZE_LIMIT);
  if (total !== undefined) {
    throw badRequest(
      `Cannot store configuration. Request would require ${total} characters. ` +
        `The current configuration size limit is ${BOT_CONFIG_SIZE_LIMIT} characters.`,
    );
  }
  await upsertBotEntries(tx.knex, "bot_config_data", botId, entries);
}

/** Python's repr of a set of strings, as Zulip's "Missing configuration parameters" shows it. */
const pythonSet = (keys: string[]) => `{${keys.map((k) => `'${k}'`).join(", ")}}`;

/**
 * Zulip's check_valid_bot_config for an incoming-webhook bot: the integration must
 * exist, and config_data must give each of its options a valid value.
 */
export function validateBotConfig(
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
