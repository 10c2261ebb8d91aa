import type { Knex } from "knex";
import { badRequest } from "../errors.js";
import { unicodeEmojiCode, unicodeEmojiName } from "./emoji-table.js";

/**
 * Emoji identity, shared by user status, reactions and Markdown. Unicode emoji have
 * Zulip's names and codes (emoji-table.ts), e.g. `smile` -> `1f604`, `+1` and its aliases
 * `thumbs_up` and `like` -> `1f44d`; a code is the dash-separated lower-case hex of its
 * code points, without U+FE0F. Each reaction type has its own code namespace.
 */
export type ReactionType = "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";

export const REACTION_TYPES: readonly string[] = [
  "unicode_emoji",
  "realm_emoji",
  "zulip_extra_emoji",
  "service_extra_emoji",
];

/** SPEC says service_extra_emoji where Zulip says zulip_extra_emoji; both mean the same. */
export function normalizeReactionType(type: string): ReactionType | null {
  if (type === "service_extra_emoji") return "zulip_extra_emoji";
  if (type === "unicode_emoji" || type === "realm_emoji" || type === "zulip_extra_emoji") return type;
  return null;
}

/** Special built-in emoji (code = name). */
const EXTRA_EMOJI = new Set(["zulip"]);

export interface Emoji {
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
}

export interface RealmEmojiRow {
  id: number;
  realm_id: number;
  name: string;
  deactivated: boolean | 0 | 1;
}

/** The realm's active custom emoji of this name (its whole row, for callers that read more). */
export async function activeRealmEmojiByName<Row extends RealmEmojiRow = RealmEmojiRow>(
  knex: Knex,
  realmId: number,
  name: string,
): Promise<Row | undefined> {
  const row: unknown = await knex("realm_emoji")
    .where({ realm_id: realmId, name, deactivated: false })
    .first();
  return row as Row | undefined;
}

/** An emoji named by its name alone: custom emoji first, then extra, then Unicode. */
export async function emojiByName(knex: Knex, realmId: number, name: string): Promise<Emoji> {
  const custom = await activeRealmEmojiByName(knex, realmId, name);
  if (custom) return { emoji_name: name, emoji_code: String(custom.id), reaction_type: "realm_emoji" };
  if (EXTRA_EMOJI.has(name))
    return { emoji_name: name, emoji_code: name, reaction_type: "zulip_extra_emoji" };
  const code = unicodeEmojiCode(name);
  if (code) return { emoji_name: name, emoji_code: code, reaction_type: "unicode_emoji" };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Zulip's check_emoji_request: the code must exist in its type's namespace and match the name. */
export async function validateEmoji(knex: Knex, realmId: number, emoji: Emoji): Promise<Emoji> {
  switch (emoji.reaction_type) {
    case "realm_emoji": {
      const row = /^\d+$/.test(emoji.emoji_code)
        ? await knex<RealmEmojiRow>("realm_emoji")
            .where({ realm_id: realmId, id: Number(emoji.emoji_code) })
            .first()
        : undefined;
      if (!row) throw badRequest("Invalid custom emoji.");
      if (row.name !== emoji.emoji_name) throw badRequest("Invalid custom emoji name.");
      if (row.deactivated) throw badRequest("This custom emoji has been deactivated.");
      return emoji;
    }
    case "zulip_extra_emoji":
      if (!EXTRA_EMOJI.has(emoji.emoji_code)) throw badRequest("Invalid emoji code.");
      if (emoji.emoji_name !== emoji.emoji_code) throw badRequest("Invalid emoji name.");
      return emoji;
    case "unicode_emoji":
      // Exact, as Zulip: any of the code's names, and only the code without U+FE0F.
      if (unicodeEmojiName(emoji.emoji_code) === undefined) throw badRequest("Invalid emoji code.");
      if (unicodeEmojiCode(emoji.emoji_name) !== emoji.emoji_code) throw badRequest("Invalid emoji name.");
      return emoji;
  }
}

/** The code half of validateEmoji: the code exists in its type's namespace (BAD_REQUEST if not). */
export async function validateEmojiCode(
  knex: Knex,
  realmId: number,
  type: ReactionType,
  code: string,
): Promise<void> {
  if (type === "realm_emoji") {
    const row = /^\d+$/.test(code)
      ? await knex<RealmEmojiRow>("realm_emoji")
          .where({ realm_id: realmId, id: Number(code) })
          .first()
      : undefined;
    if (!row) throw badRequest("Invalid custom emoji.");
  } else if (type === "zulip_extra_emoji" ? !EXTRA_EMOJI.has(code) : unicodeEmojiName(code) === undefined) {
    throw badRequest("Invalid emoji code.");
  }
}

/**
 * Resolves what a client sent (name, and optionally code and type) to a checked emoji,
 * as Zulip does for statuses and reactions: without a code, the name alone decides the
 * code and type; without a type, the name decides the type.
 */
export async function resolveEmoji(
  knex: Knex,
  realmId: number,
  request: { emoji_name: string; emoji_code?: string; reaction_type?: string },
): Promise<Emoji> {
  let code = request.emoji_code;
  let type: ReactionType | null;
  if (code === undefined) {
    const byName = await emojiByName(knex, realmId, request.emoji_name);
    code = byName.emoji_code;
    type = byName.reaction_type;
  } else if (request.reaction_type === undefined) {
    type = (await emojiByName(knex, realmId, request.emoji_name)).reaction_type;
  } else {
    type = normalizeReactionType(request.reaction_type);
    if (type === null) throw badRequest("Invalid emoji type.");
  }
  return validateEmoji(knex, realmId, {
    emoji_name: request.emoji_name,
    emoji_code: code,
    reaction_type: type,
  });
}
