import { createRequire } from "node:module";
import type { Knex } from "knex";
import { badRequest } from "../errors.js";

/**
 * Emoji identity, shared by user status, reactions and Markdown. Unicode emoji names
 * and code points come from iamcal's emoji-datasource (the table Slack and Zulip derive
 * theirs from), e.g. `smile` -> `1f604`; a code is the dash-separated lower-case hex of
 * its code points. Each reaction type has its own code namespace.
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

interface EmojiRecord {
  unified: string;
  non_qualified: string | null;
  short_names: string[];
}

interface UnicodeTable {
  nameToCode: Map<string, string>;
  codeToName: Map<string, string>;
}

let table: UnicodeTable | null = null;

/** Loaded on first use: the data file is large and most requests never need it. */
function unicodeTable(): UnicodeTable {
  if (table) return table;
  const records = createRequire(import.meta.url)("emoji-datasource/emoji.json") as EmojiRecord[];
  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  for (const record of records) {
    const code = (record.non_qualified ?? record.unified).toLowerCase();
    for (const name of record.short_names) if (!nameToCode.has(name)) nameToCode.set(name, code);
    if (record.short_names[0]) codeToName.set(code, record.short_names[0]);
    // Accept the fully-qualified form (with fe0f) as the same emoji.
    const qualified = record.unified.toLowerCase();
    if (qualified !== code && record.short_names[0]) codeToName.set(qualified, record.short_names[0]);
  }
  table = { nameToCode, codeToName };
  return table;
}

export const unicodeEmojiCode = (name: string): string | undefined => unicodeTable().nameToCode.get(name);
export const unicodeEmojiName = (code: string): string | undefined => unicodeTable().codeToName.get(code);

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

async function activeRealmEmojiByName(
  knex: Knex,
  realmId: number,
  name: string,
): Promise<RealmEmojiRow | undefined> {
  return knex<RealmEmojiRow>("realm_emoji").where({ realm_id: realmId, name, deactivated: false }).first();
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
export async function checkEmoji(knex: Knex, realmId: number, emoji: Emoji): Promise<Emoji> {
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
    case "unicode_emoji": {
      if (!unicodeTable().codeToName.has(emoji.emoji_code)) throw badRequest("Invalid emoji code.");
      const code = unicodeEmojiCode(emoji.emoji_name);
      if (
        code === undefined ||
        (code !== emoji.emoji_code && unicodeEmojiName(code) !== unicodeEmojiName(emoji.emoji_code))
      ) {
        throw badRequest("Invalid emoji name.");
      }
      return emoji;
    }
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
  return checkEmoji(knex, realmId, { emoji_name: request.emoji_name, emoji_code: code, reaction_type: type });
}
