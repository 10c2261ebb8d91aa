import type { BotUpdate, RealmBotEvent } from "../../wire/events.js";
import type { WireBot } from "../../wire/records.js";

/** realm_bot events: for a bot's owner and, unless it is private, the administrators. */
export const realmBotEvents = {
  /** A bot its recipients now administer; owner_id only when it has one (Zulip). */
  add(bot: WireBot): RealmBotEvent {
    const { owner_id: ownerId, ...rest } = bot;
    return { type: "realm_bot", op: "add", bot: ownerId === null ? rest : { ...rest, owner_id: ownerId } };
  },
  update(change: BotUpdate): RealmBotEvent {
    return { type: "realm_bot", op: "update", bot: change };
  },
  /** The bot is no longer theirs to administer (its previous owner). */
  delete(botId: number): RealmBotEvent {
    return { type: "realm_bot", op: "delete", bot: { user_id: botId } };
  },
};
