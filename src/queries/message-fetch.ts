import type { Knex } from "knex";
import { RECIPIENT_TYPE } from "../db/channel-rows.js";
import { bool, int, type DbBigInt, type UserRow } from "../db/rows.js";
import { EMAIL_VISIBILITY } from "../permissions/email-visibility.js";
import {
  displayRecipientUser,
  presentMessage,
  type DisplayRecipientUser,
  type MessageRow,
} from "../presenters/messages.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { presentSubmessage, type SubmessageRow } from "../presenters/submessages.js";
import { topicLinks, type Linkifier } from "../render/message.js";
import type { ChannelWorld } from "../permissions/channel-access.js";
import { flagNames } from "../lib/message-flags.js";
import { escapeHtml } from "../lib/html.js";
import { highlightHtml, highlightText, type SearchTerms } from "../lib/search.js";

/**
 * Message dictionaries for fetch responses (GET /messages, GET /messages/{id}): a
 * fixed number of bulk queries per list (messages, direct-message recipients and
 * groups, reactions, linkifiers), never one per message.
 */

export interface FetchShape {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopicName: boolean;
  /** The narrow's search terms: adds match_content / match_subject. */
  search?: SearchTerms | null;
}

export interface FetchedRow extends MessageRow {
  realm_id: number;
  last_edit_time: DbBigInt | null;
  last_moved_time: DbBigInt | null;
  edit_history: string | null;
}

const COLUMNS = [
  "id",
  "realm_id",
  "sender_id",
  "recipient_id",
  "stream_id",
  "topic",
  "content",
  "rendered_content",
  "date_sent",
  "sending_client",
  "is_me_message",
  "last_edit_time",
  "last_moved_time",
  "edit_history",
];

export async function loadMessageRows(knex: Knex, ids: readonly number[]): Promise<Map<number, FetchedRow>> {
  const rows: FetchedRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    rows.push(
      ...(await knex("messages")
        .whereIn("id", ids.slice(i, i + 500))
        .select<FetchedRow[]>(COLUMNS)),
    );
  }
  return new Map(rows.map((r) => [r.id, r]));
}

interface ReactionRow {
  message_id: number;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

async function inChunks<T>(ids: readonly number[], load: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += 500) out.push(...(await load(ids.slice(i, i + 500))));
  return out;
}

/** display_recipient of each direct message recipient (Zulip's hydrate_recipient_info). */
async function directRecipients(
  knex: Knex,
  world: ChannelWorld,
  rows: readonly FetchedRow[],
): Promise<(row: FetchedRow) => DisplayRecipientUser[]> {
  const recipientIds = [...new Set(rows.filter((r) => r.stream_id === null).map((r) => r.recipient_id))];
  const recipients = await inChunks(recipientIds, (chunk) =>
    knex("recipients").whereIn("id", chunk).select<Array<{ id: number; type: number; type_id: number }>>(),
  );
  const groupIds = recipients
    .filter((r) => r.type === RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP)
    .map((r) => r.type_id);
  const groups = await inChunks(groupIds, (chunk) =>
    knex("direct_message_groups")
      .whereIn("id", chunk)
      .select<Array<{ id: number; user_ids_key: string }>>("id", "user_ids_key"),
  );
  const byRecipient = new Map(recipients.map((r) => [r.id, r]));
  const groupMembers = new Map(groups.map((g) => [g.id, g.user_ids_key.split(",").map(Number)]));
  const userOf = (id: number) => world.realm.userOrSystemBot(id);
  return (row) => {
    const recipient = byRecipient.get(row.recipient_id);
    if (recipient?.type === RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP) {
      return (groupMembers.get(recipient.type_id) ?? [])
        .map(userOf)
        .filter((u): u is UserRow => u !== undefined)
        .map(displayRecipientUser)
        .sort((a, b) => a.id - b.id);
    }
    const ids = [...new Set([row.sender_id, recipient?.type_id ?? row.sender_id])];
    return ids
      .map(userOf)
      .filter((u): u is UserRow => u !== undefined)
      .map(displayRecipientUser)
      .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
  };
}

/** The message's reactions, by message ID (Zulip's ReactionDict). */
async function reactionsOf(
  knex: Knex,
  world: ChannelWorld,
  ids: readonly number[],
): Promise<Map<number, Array<Record<string, unknown>>>> {
  const rows = await inChunks(ids, (chunk) =>
    knex("reactions")
      .whereIn("message_id", chunk)
      .orderBy("id")
      .select<ReactionRow[]>("message_id", "user_id", "emoji_name", "emoji_code", "reaction_type"),
  );
  const out = new Map<number, Array<Record<string, unknown>>>();
  for (const r of rows) {
    const list = out.get(r.message_id) ?? [];
    list.push({
      emoji_name: r.emoji_name,
      emoji_code: r.emoji_code,
      reaction_type: r.reaction_type,
      // Zulip 10 (feature level 328) dropped the deprecated `user` object here.
      user_id: r.user_id,
    });
    out.set(r.message_id, list);
  }
  return out;
}

/** The messages' submessages, by message ID, each list in ID order. */
async function submessagesOf(
  knex: Knex,
  ids: readonly number[],
): Promise<Map<number, Array<ReturnType<typeof presentSubmessage>>>> {
  const rows = await inChunks(ids, (chunk) =>
    knex("submessages")
      .whereIn("message_id", chunk)
      .orderBy("id")
      .select<SubmessageRow[]>("id", "message_id", "sender_id", "msg_type", "content"),
  );
  const out = new Map<number, Array<ReturnType<typeof presentSubmessage>>>();
  for (const row of rows)
    out.set(row.message_id, [...(out.get(row.message_id) ?? []), presentSubmessage(row)]);
  return out;
}

/** Zulip's flags for a user's copy; historical when the user never received it. */
export const fetchedFlags = (bits: number | null) =>
  bits === null ? ["read", "historical"] : flagNames(bits);

/** match_content / match_subject: highlighted with search terms, else plain. */
export function matchFields(row: { rendered_content: string; topic: string }, search: SearchTerms | null) {
  return search
    ? {
        match_content: highlightHtml(row.rendered_content, search),
        match_subject: highlightText(row.topic, search),
      }
    : { match_content: row.rendered_content, match_subject: escapeHtml(row.topic) };
}

/**
 * The message dictionaries of `entries` (ID and the user's flag bits, null for
 * historical), in the given order, shaped for the client.
 */
export async function fetchMessageDicts(
  knex: Knex,
  world: ChannelWorld,
  entries: ReadonlyArray<{ id: number; flags: number | null }>,
  shape: FetchShape,
): Promise<Array<Record<string, unknown>>> {
  const ids = entries.map((e) => e.id);
  const rows = await loadMessageRows(knex, ids);
  const list = [...rows.values()];
  const direct = await directRecipients(knex, world, list);
  const reactions = await reactionsOf(knex, world, ids);
  const submessages = await submessagesOf(knex, ids);
  const realmRow = world.realm.realm;
  const linkifiers = list.some((r) => r.stream_id !== null)
    ? await knex("linkifiers")
        .where({ realm_id: realmRow.id })
        .orderBy(["order", "id"])
        .select<Linkifier[]>("pattern", "url_template")
    : [];
  const showEditHistory =
    bool(realmRow.allow_edit_history) && realmRow.message_edit_history_visibility_policy !== "none";
  // A page of messages shares a few topics: linkify each topic once.
  const topicLinkCache = new Map<string, ReturnType<typeof topicLinks>>();
  const linksOf = (topic: string) => {
    let links = topicLinkCache.get(topic);
    if (!links) topicLinkCache.set(topic, (links = topicLinks(topic, linkifiers)));
    return links;
  };
  const out: Array<Record<string, unknown>> = [];
  for (const entry of entries) {
    const row = rows.get(entry.id);
    if (!row) continue;
    const sender = world.realm.userOrSystemBot(row.sender_id);
    if (!sender) continue;
    const channel = row.stream_id === null ? undefined : world.channels.channel(row.stream_id);
    const message: Record<string, unknown> = presentMessage(row, {
      realmStr: realmRow.string_id,
      sender,
      displayRecipient: row.stream_id === null ? direct(row) : (channel?.name ?? ""),
      topicLinks: row.stream_id === null ? [] : linksOf(row.topic),
    });
    if (shape.applyMarkdown) {
      message.content = row.rendered_content;
      message.content_type = "text/html";
    }
    delete message.rendered_content;
    const computable =
      sender.email_address_visibility === EMAIL_VISIBILITY.EVERYONE && sender.avatar_source === "G";
    if (shape.clientGravatar && computable) message.avatar_url = null;
    if (row.stream_id !== null && row.topic === "" && !shape.allowEmptyTopicName) {
      message.subject = emptyTopicDisplayName(realmRow);
    }
    message.reactions = reactions.get(row.id) ?? [];
    message.submessages = submessages.get(row.id) ?? [];
    if (row.last_edit_time !== null) message.last_edit_timestamp = int(row.last_edit_time);
    if (row.last_moved_time !== null) message.last_moved_timestamp = int(row.last_moved_time);
    if (row.edit_history !== null && showEditHistory) {
      message.edit_history = JSON.parse(row.edit_history) as unknown;
    }
    message.flags = fetchedFlags(entry.flags);
    if (shape.search) Object.assign(message, matchFields(row, shape.search));
    out.push(message);
  }
  return out;
}
