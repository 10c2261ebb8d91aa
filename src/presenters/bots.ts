import { bool, type BotServiceRow, type UserRow } from "../db/rows.js";
import type { WireBot, WireBotService } from "../wire/records.js";
import { BOT_TYPE } from "../world/bots.js";
import type { ChannelSnapshot } from "../world/channels.js";
import { avatarUrl } from "./users.js";

/**
 * Bots as those who administer them see them: register's realm_bots, realm_bot events,
 * GET /bots. chatd keeps only a digest of each API key, so `api_key` is always empty:
 * a bot's key is shown once, when POST /bots or a regeneration issues it.
 */

/** What a bot's record needs besides its row. */
interface BotDetails {
  readonly channels: ChannelSnapshot;
  readonly services: readonly BotServiceRow[];
  readonly config: Readonly<Record<string, string>> | undefined;
}

const channelNameOrNull = (channels: ChannelSnapshot, id: number | null): string | null =>
  id === null ? null : (channels.channel(id)?.name ?? null);

/** An outgoing webhook bot's service as events carry it. */
export const presentOutgoingService = (service: BotServiceRow): WireBotService => ({
  base_url: service.base_url,
  interface: service.interface,
  token: service.token,
});

/** Zulip's services: outgoing webhooks list theirs, embedded bots their configuration. */
function presentBotServices(bot: UserRow, details: BotDetails): WireBotService[] {
  if (bot.bot_type === BOT_TYPE.OUTGOING_WEBHOOK) return details.services.map(presentOutgoingService);
  if (bot.bot_type === BOT_TYPE.EMBEDDED && details.config) {
    return [{ config_data: { ...details.config }, service_name: details.services[0]?.name ?? "" }];
  }
  return [];
}

/** A bot's default channels (by name) and default_all_public_streams, as every bot answer shows them. */
export const presentBotDefaults = (bot: UserRow, channels: ChannelSnapshot) => ({
  default_sending_stream: channelNameOrNull(channels, bot.default_sending_stream_id),
  default_events_register_stream: channelNameOrNull(channels, bot.default_events_register_stream_id),
  default_all_public_streams: bool(bot.default_all_public_streams),
});

/** A bot as realm_bots lists it (Zulip's get_owned_bot_dicts). */
export function presentBot(bot: UserRow, details: BotDetails): WireBot {
  return {
    email: bot.email,
    user_id: bot.id,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bool(bot.is_active),
    api_key: "",
    ...presentBotDefaults(bot, details.channels),
    owner_id: bot.bot_owner_id,
    avatar_url: avatarUrl(bot, false)!,
    services: presentBotServices(bot, details),
  };
}

/** A bot as GET /bots lists it for its owner (Zulip's get_bots_backend). */
export function presentOwnedBot(bot: UserRow, channels: ChannelSnapshot): Record<string, unknown> {
  return {
    username: bot.email,
    full_name: bot.full_name,
    api_key: "",
    avatar_url: avatarUrl(bot, false),
    ...presentBotDefaults(bot, channels),
  };
}
