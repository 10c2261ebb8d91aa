import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, JsonableError } from "../errors.js";
import {
  validateEmoji,
  validateEmojiCode,
  emojiByName,
  normalizeReactionType,
  type Emoji,
} from "../render/emoji.js";
import { messageAudience } from "../lib/message-audience.js";
import { MESSAGE_FLAG_BITS } from "../lib/message-flags.js";
import { accessMessage } from "../lib/message-access.js";
import type { RealmSnapshot } from "../world/realm.js";
import { loadWorld } from "../cache/world.js";
import { reactionEvent } from "../presenters/events/messages.js";

export interface ReactionRequest {
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

const reactionAlreadyExists = () =>
  new JsonableError("Reaction already exists.", "REACTION_ALREADY_EXISTS", 400);
const reactionDoesNotExist = () =>
  new JsonableError("Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST", 400);

/** The emoji a request names: the name decides a missing code or type. */
async function requestedEmoji(tx: Tx, realmId: number, request: ReactionRequest & { emoji_name: string }) {
  const type = request.reaction_type === undefined ? undefined : normalizeReactionType(request.reaction_type);
  if (type === null) throw badRequest("Invalid emoji type.");
  if (request.emoji_code !== undefined && type !== undefined)
    return { emoji_name: request.emoji_name, emoji_code: request.emoji_code, reaction_type: type };
  const byName = await emojiByName(tx.knex, realmId, request.emoji_name);
  return {
    emoji_name: request.emoji_name,
    emoji_code: request.emoji_code ?? byName.emoji_code,
    reaction_type: type ?? byName.reaction_type,
  };
}

/** POST /messages/{id}/reactions (Zulip's check_add_reaction). */
export function checkAddReaction(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  messageId: number,
  request: ReactionRequest & { emoji_name: string },
): Promise<void> {
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realm);
    const message = await accessMessage({ knex: tx.knex, world, user }, messageId);
    let emoji: Emoji = await requestedEmoji(tx, realm.id, request);
    const same = { message_id: messageId, emoji_code: emoji.emoji_code, reaction_type: emoji.reaction_type };
    if (
      await tx
        .knex("reactions")
        .where({ ...same, user_id: user.id })
        .first("id")
    )
      throw reactionAlreadyExists();
    // Joining someone else's reaction ("voting") keeps its name and needs no check.
    const other = await tx
      .knex("reactions")
      .where(same)
      .first<{ emoji_name: string } | undefined>("emoji_name");
    emoji = other
      ? { ...emoji, emoji_name: other.emoji_name }
      : await validateEmoji(tx.knex, realm.id, emoji);
    if (message.flags === null) {
      // A reactor receives the message's later updates: give it a historical row.
      await tx.knex("user_messages").insert({
        user_id: user.id,
        message_id: messageId,
        flags: MESSAGE_FLAG_BITS.read | MESSAGE_FLAG_BITS.historical,
      });
    }
    await tx.knex("reactions").insert({ ...emoji, message_id: messageId, user_id: user.id });
    const audience = await messageAudience(tx.knex, world, message);
    tx.sendEventOnCommit(realm.id, reactionEvent("add", user, messageId, emoji), audience);
  });
}

/** DELETE /messages/{id}/reactions (Zulip's remove_reaction). */
export function checkRemoveReaction(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  messageId: number,
  request: ReactionRequest,
): Promise<void> {
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realm);
    const message = await accessMessage({ knex: tx.knex, world, user }, messageId);
    if (request.emoji_name === undefined && request.emoji_code === undefined)
      throw badRequest("At least one of the following arguments must be present: emoji_name, emoji_code");
    let code = request.emoji_code;
    let type = request.reaction_type === undefined ? undefined : normalizeReactionType(request.reaction_type);
    if (type === null) throw badRequest("Invalid emoji type.");
    if (code === undefined) {
      const byName = await emojiByName(tx.knex, realm.id, request.emoji_name!);
      code = byName.emoji_code;
      type ??= byName.reaction_type;
    }
    const where = {
      message_id: messageId,
      user_id: user.id,
      emoji_code: code,
      reaction_type: type ?? "unicode_emoji",
    };
    const row = await tx
      .knex("reactions")
      .where(where)
      .first<Emoji | undefined>("emoji_name", "emoji_code", "reaction_type");
    if (!row) {
      // SPEC: an invalid code is BAD_REQUEST; checked only now, so an existing reaction
      // can always be removed (even if its emoji no longer exists).
      if (request.emoji_code !== undefined)
        await validateEmojiCode(tx.knex, realm.id, where.reaction_type, code);
      throw reactionDoesNotExist();
    }
    await tx.knex("reactions").where(where).delete();
    const audience = await messageAudience(tx.knex, world, message);
    tx.sendEventOnCommit(realm.id, reactionEvent("remove", user, messageId, row), audience);
  });
}
