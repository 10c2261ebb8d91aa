import type { App } from "../app.js";
import type { Tx } from "../db/tx.js";
import type { UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { bulkInsert } from "../db/insert.js";
import { GroupCommit } from "../db/group-commit.js";
import { accessChannelById, type ChannelWorld } from "../permissions/channel-access.js";
import { MESSAGE_FLAG_BITS, type MessageFlag } from "../lib/message-flags.js";
import {
  validateRange,
  fetchRange,
  parseAnchor,
  resolveAnchor,
  resolveNarrow,
  type NarrowTerm,
} from "../lib/narrow/index.js";
import { conversationsOf, loadUnreadRows, unreadMessageDetails } from "../lib/unread.js";
import type { RealmSnapshot } from "../world/realm.js";
import { accessMessages } from "../lib/message-access.js";
import { loadWorld } from "../cache/world.js";
import { updateMessageFlagsEvent } from "../presenters/events/messages.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";

export type FlagOp = "add" | "remove";

/** Flags only the server sets (Zulip's NON_EDITABLE_FLAGS). */
const NON_EDITABLE: ReadonlySet<string> = new Set([
  "has_alert_word",
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "group_mentioned",
  "historical",
  "force_expand",
  "force_collapse",
]);
/** Flags that exist in the bitfield but are never a client's business. */
const INTERNAL: ReadonlySet<string> = new Set(["is_private", "active_mobile_push_notification"]);

/** Zulip's MAX_MESSAGES_PER_UPDATE for flags/narrow. */
const MAX_MESSAGES_PER_UPDATE = 5000;

const READ = MESSAGE_FLAG_BITS.read;
/** Message IDs one statement takes (a read-mark of this many or fewer is one UPDATE). */
const ROWS_PER_STATEMENT = 500;
const HISTORICAL = MESSAGE_FLAG_BITS.historical;

/** Validates the flag and operation, with Zulip's errors in Zulip's order. */
export function validateFlagChange(flag: string, op: string): { bit: number; op: FlagOp; flag: MessageFlag } {
  if (!(flag in MESSAGE_FLAG_BITS) || INTERNAL.has(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (NON_EDITABLE.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  if (op !== "add" && op !== "remove") throw badRequest(`Invalid message flag operation: '${op}'`);
  return { bit: MESSAGE_FLAG_BITS[flag as MessageFlag], op, flag: flag as MessageFlag };
}

export interface FlagChangeResult {
  /** IDs whose flag actually changed, ascending. */
  changed: number[];
  /** For remove/read: channels whose messages were skipped because the user left them. */
  ignoredChannels: number[];
}

/**
 * Zulip's do_update_message_flags. A message the user has no row for counts as
 * read|historical: changing it to anything else creates a historical row, but only for
 * messages whose channel history the user may read ("Invalid message(s)" otherwise).
 */
export async function doUpdateMessageFlags(
  tx: Tx,
  world: ChannelWorld,
  user: UserRow,
  change: { bit: number; op: FlagOp; flag: MessageFlag },
  messageIds: readonly number[],
): Promise<FlagChangeResult> {
  const ids = [...new Set(messageIds)];
  if (change.op === "add" && change.flag === "read")
    return { changed: await addRead(tx, world, user, ids), ignoredChannels: [] };
  const held = new Map<number, number>();
  for (let i = 0; i < ids.length; i += ROWS_PER_STATEMENT) {
    const rows = await tx
      .knex("user_messages")
      .where("user_id", user.id)
      .whereIn("message_id", ids.slice(i, i + ROWS_PER_STATEMENT))
      .select<Array<{ message_id: number; flags: number }>>("message_id", "flags");
    for (const row of rows) held.set(row.message_id, row.flags);
  }
  const wants = (flags: number) =>
    change.op === "add" ? (flags & change.bit) === 0 : (flags & change.bit) !== 0;
  const missing = ids.filter((id) => !held.has(id));
  const created = wants(READ | HISTORICAL) ? await historicalRows(tx, world, user, missing) : [];

  let candidates = [...ids.filter((id) => held.has(id) && wants(held.get(id)!)), ...created];
  const ignoredChannels = new Set<number>();
  if (change.op === "remove" && change.flag === "read" && candidates.length > 0) {
    // Messages of channels the user is not subscribed to stay read.
    const heads = await tx
      .knex("messages")
      .whereIn("id", candidates)
      .whereNotNull("stream_id")
      .select<Array<{ id: number; stream_id: number }>>("id", "stream_id");
    const skip = new Set<number>();
    for (const head of heads) {
      if (world.channels.isSubscribed(user.id, head.stream_id)) continue;
      skip.add(head.id);
      ignoredChannels.add(head.stream_id);
    }
    candidates = candidates.filter((id) => !skip.has(id));
  }
  candidates.sort((a, b) => a - b);
  for (let i = 0; i < candidates.length; i += ROWS_PER_STATEMENT) {
    const part = candidates.slice(i, i + ROWS_PER_STATEMENT);
    const flags =
      change.op === "add"
        ? tx.knex.raw(`flags | ${change.bit}`)
        : tx.knex.raw(`flags & ${~change.bit & 0x7fffffff}`);
    await tx.knex("user_messages").where("user_id", user.id).whereIn("message_id", part).update({ flags });
  }
  if (candidates.length > 0) await sendFlagEvent(tx, world, user, change, candidates);
  return { changed: candidates, ignoredChannels: [...ignoredChannels].sort((a, b) => a - b) };
}

/**
 * Marking messages read, what every client does every minute and the most frequent write
 * of all: one UPDATE ... RETURNING, with no SELECT before it (one trip through the driver
 * fewer while the write lock is held). A message the user has no row for counts as read
 * already, so only rows change.
 */
async function addRead(
  tx: Tx,
  world: ChannelWorld,
  user: UserRow,
  ids: readonly number[],
): Promise<number[]> {
  const changed: number[] = [];
  for (let i = 0; i < ids.length; i += ROWS_PER_STATEMENT) {
    const rows = await tx
      .knex("user_messages")
      .where("user_id", user.id)
      .whereIn("message_id", ids.slice(i, i + ROWS_PER_STATEMENT))
      .whereRaw(`(flags & ${READ}) = 0`)
      .update({ flags: tx.knex.raw(`flags | ${READ}`) }, ["message_id"]);
    for (const row of rows as Array<{ message_id: number }>) changed.push(row.message_id);
  }
  changed.sort((a, b) => a - b);
  if (changed.length > 0) await sendFlagEvent(tx, world, user, { op: "add", flag: "read" }, changed);
  return changed;
}

/** Creates read|historical rows for accessible messages the user never received. */
async function historicalRows(
  tx: Tx,
  world: ChannelWorld,
  user: UserRow,
  messageIds: readonly number[],
): Promise<number[]> {
  if (messageIds.length === 0) return [];
  const readable = await accessMessages({ knex: tx.knex, world, user }, messageIds);
  await bulkInsert(
    tx.knex,
    "user_messages",
    ["user_id", "message_id", "flags"],
    readable.map((head) => [user.id, head.id, READ | HISTORICAL]),
  );
  return readable.map((head) => head.id);
}

/** update_message_flags to the user's own queues; remove/read carries message_details. */
async function sendFlagEvent(
  tx: Tx,
  world: ChannelWorld,
  user: UserRow,
  change: { op: FlagOp; flag: MessageFlag },
  messageIds: number[],
): Promise<void> {
  let messageDetails;
  if (change.op === "remove" && change.flag === "read") {
    const rows = await loadUnreadRows(tx.knex, user.id, messageIds);
    messageDetails = unreadMessageDetails(
      user.id,
      rows,
      await conversationsOf(tx.knex, world, user.id, rows),
    );
  }
  const event = updateMessageFlagsEvent(change.op, change.flag, messageIds, {
    messageDetails,
    emptyTopicName: emptyTopicDisplayName(world.realm.realm),
  });
  tx.sendEventOnCommit(user.realm_id, event, [user.id]);
}

/** Which unread messages a bulk "mark as read" covers. */
export type ReadScope =
  | { kind: "all" }
  | { kind: "channel"; channelId: number; topic?: string }
  | { kind: "sender"; senderId: number };

/**
 * mark_all_as_read / mark_stream_as_read / mark_topic_as_read, and muting a user (their
 * messages): one bulk update through the unread partial index. Marking everything sends
 * Zulip's `all: true` event.
 */
export async function doMarkAsRead(tx: Tx, user: UserRow, scope: ReadScope): Promise<number[]> {
  const unread = tx
    .knex("user_messages as um")
    .where("um.user_id", user.id)
    .whereRaw(`(um.flags & ${READ}) = 0`);
  if (scope.kind === "channel") {
    unread.join("messages as m", "m.id", "um.message_id").where("m.stream_id", scope.channelId);
    if (scope.topic !== undefined) unread.where("m.topic_key", scope.topic.toLowerCase());
  } else if (scope.kind === "sender") {
    unread.join("messages as m", "m.id", "um.message_id").where("m.sender_id", scope.senderId);
  }
  const ids = ((await unread.pluck("um.message_id")) as number[]).sort((a, b) => a - b);
  for (let i = 0; i < ids.length; i += ROWS_PER_STATEMENT) {
    await tx
      .knex("user_messages")
      .where("user_id", user.id)
      .whereIn("message_id", ids.slice(i, i + ROWS_PER_STATEMENT))
      .update({ flags: tx.knex.raw(`flags | ${READ}`) });
  }
  if (scope.kind === "all" || ids.length > 0) {
    const all = scope.kind === "all";
    tx.sendEventOnCommit(user.realm_id, updateMessageFlagsEvent("add", "read", all ? [] : ids, { all }), [
      user.id,
    ]);
  }
  return ids;
}

/** Zulip's checks for mark_stream_as_read / mark_topic_as_read. */
export async function validateReadScope(
  tx: Tx,
  world: ChannelWorld,
  user: UserRow,
  channelId: number,
  topic?: string,
): Promise<ReadScope> {
  accessChannelById(world, user, channelId);
  if (topic === undefined) return { kind: "channel", channelId };
  const found = await tx
    .knex("user_messages as um")
    .join("messages as m", "m.id", "um.message_id")
    .where({ "um.user_id": user.id, "m.stream_id": channelId, "m.topic_key": topic.toLowerCase() })
    .first<{ id: number } | undefined>("m.id");
  if (!found) throw badRequest(`No such topic '${topic}'`);
  return { kind: "channel", channelId, topic };
}

/** POST /messages/flags: changes a flag of the listed messages. */
export async function checkUpdateMessageFlags(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  change: { bit: number; op: FlagOp; flag: MessageFlag },
  messageIds: readonly number[],
): Promise<FlagChangeResult> {
  // Marking read, as every client does every minute: one UPDATE (addRead), no transaction.
  if (change.op === "add" && change.flag === "read" && new Set(messageIds).size <= ROWS_PER_STATEMENT) {
    const world = await loadWorld(app, app.knex, realm);
    return app.db.statement((tx) => doUpdateMessageFlags(tx, world, user, change, messageIds), "flags");
  }
  return flagCommits(app).submit({ realm, user, change, messageIds });
}

interface FlagUpdate {
  realm: RealmSnapshot;
  user: UserRow;
  change: { bit: number; op: FlagOp; flag: MessageFlag };
  messageIds: readonly number[];
}

/**
 * Flag changes other than marking a few hundred messages read (which is one statement,
 * app.db.statement): updates that arrive while a transaction runs share the next one, each
 * answered only after it committed; a failing update is retried alone (GroupCommit).
 */
const flagWriters = new WeakMap<App, GroupCommit<FlagUpdate, FlagChangeResult>>();

function flagCommits(app: App): GroupCommit<FlagUpdate, FlagChangeResult> {
  let writer = flagWriters.get(app);
  if (!writer) {
    writer = new GroupCommit(app.db, async (tx, updates) => {
      const results: FlagChangeResult[] = [];
      for (const { realm, user, change, messageIds } of updates) {
        const world = await loadWorld(app, tx.knex, realm);
        results.push(await doUpdateMessageFlags(tx, world, user, change, messageIds));
      }
      return results;
    });
    flagWriters.set(app, writer);
  }
  return writer;
}

/** The anchor window of POST /messages/flags/narrow, as the client asked for it. */
export interface FlagWindow {
  anchor: string;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
}

export interface NarrowFlagChangeResult extends FlagChangeResult {
  /** The user's messages in the window, ascending: what was processed. */
  processed: number[];
  foundOldest: boolean;
  foundNewest: boolean;
}

/**
 * POST /messages/flags/narrow: changes a flag of the user's messages in an anchor window
 * of a narrow. The window is clamped to MAX_MESSAGES_PER_UPDATE.
 */
export async function checkUpdateMessageFlagsForNarrow(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  change: { bit: number; op: FlagOp; flag: MessageFlag },
  narrowTerms: NarrowTerm[],
  window: FlagWindow,
): Promise<NarrowFlagChangeResult> {
  const requested = parseAnchor(window.anchor);
  // The server may lower the window (Zulip's clamp), never raise it.
  const numBefore = Math.min(
    window.numBefore,
    Math.max(MAX_MESSAGES_PER_UPDATE - window.numAfter, MAX_MESSAGES_PER_UPDATE / 2),
  );
  const numAfter = Math.min(window.numAfter, MAX_MESSAGES_PER_UPDATE - numBefore);
  validateRange(numBefore, numAfter, window.includeAnchor);
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realm);
    const scope = { knex: tx.knex, world, user, config: app.config };
    const narrow = await resolveNarrow(scope, narrowTerms);
    const anchor = await resolveAnchor(scope, narrow, requested);
    const range = await fetchRange(
      scope,
      narrow,
      { anchor, numBefore, numAfter, includeAnchor: window.includeAnchor },
      { userMessagesOnly: true },
    );
    const ids = range.rows.map((row) => row.id);
    const result = await doUpdateMessageFlags(tx, world, user, change, ids);
    return { ...result, processed: ids, foundOldest: range.foundOldest, foundNewest: range.foundNewest };
  });
}

/**
 * mark_all_as_read (no channel), mark_stream_as_read (a channel) and mark_topic_as_read
 * (a channel and topic): checks the scope and marks it read in one transaction.
 */
export async function checkMarkAsRead(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  channelId?: number,
  topic?: string,
): Promise<number[]> {
  if (channelId === undefined) return app.db.transaction((tx) => doMarkAsRead(tx, user, { kind: "all" }));
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realm);
    const scope = await validateReadScope(tx, world, user, channelId, topic);
    return doMarkAsRead(tx, user, scope);
  });
}
