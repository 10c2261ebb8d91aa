import { bool, type UserRow } from "../db/rows.js";
import { avatarUrl } from "./users.js";

/**
 * A bot as register's realm_bots and realm_bot events describe it to those who
 * administer it. chatd keeps only a digest of each API key, so the key itself cannot be
 * shown again (it is shown once, when issued); bots have no default channels or
 * services yet.
 */
export function presentBot(bot: UserRow): Record<string, unknown> {
  return {
    user_id: bot.id,
    email: bot.email,
    full_name: bot.full_name,
    bot_type: bot.bot_type,
    is_active: bool(bot.is_active),
    api_key: "",
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: avatarUrl(bot, false)!,
    owner_id: bot.bot_owner_id,
    services: [],
  };
}
