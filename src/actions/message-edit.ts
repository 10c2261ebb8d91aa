import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { bool, int, type DbBigInt, type UserRow } from "../db/rows.js";
import { reindexMessages } from "../db/search.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import {
  accessChannelById,
  canAccessChannelHistory,
  requireCanPostToChannel,
  type ChannelWorld,
} from "../permissions/channel-access.js";
import { MESSAGE_FLAG_BITS, flagNames } from "../lib/message-flags.js";
import { renderForSend } from "../lib/message-render.js";
import { accessMessage } from "../lib/message-access.js";
import { bulkInsert } from "../db/insert.js";
import { refreshFirstMessageId } from "./message-delete.js";
import { doCarryTopicVisibility, topicHasMessages } from "./user-topics.js";
import type { RealmSnapshot } from "../world/realm.js";
import { htmlToText } from "../lib/search.js";
import { isModeratorOrAbove } from "../world/roles.js";
import { userHasChannelPermission, userHasRealmPermission } from "../permissions/setting-permissions.js";
import { validateTopic, normalizeContent, truncateTopic } from "../lib/message-content.js";
import { emptyTopicDisplayName } from "../lib/realm-limits.js";
import { loadWorld } from "../cache/world.js";
import { doUpdateAttachmentClaims } from "./uploads.js";
import type { PropagateMode } from "../wire/events.js";
import {
  deleteMessageEvent,
  updateMessageEvent,
  type ContentEdit,
  type MessageEdit,
} from "../presenters/events/messages.js";

export interface EditRequest {
  content?: string;
  topic?: string;
  propagateMode: string;
  streamId?: number;
}

/** Zulip allows a little slack past the edit time limits (network delays). */
const EDIT_LIMIT_BUFFER_SECONDS = 20;
const RESOLVED_PREFIX = "✔ ";
const MENTION_BITS =
  MESSAGE_FLAG_BITS.mentioned |
  MESSAGE_FLAG_BITS.stream_wildcard_mentioned |
  MESSAGE_FLAG_BITS.topic_wildcard_mentioned |
  MESSAGE_FLAG_BITS.group_mentioned;
/** What a content edit recomputes (Zulip's update_user_message_flags). */
const RECOMPUTED_BITS = MENTION_BITS | MESSAGE_FLAG_BITS.has_alert_word;

interface EditedRow {
  id: number;
  sender_id: number;
  stream_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  date_sent: number;
  edit_history: string | null;
  is_me_message: boolean | number;
}
const EDIT_COLUMNS = [
  "id",
  "sender_id",
  "stream_id",
  "topic",
  "content",
  "rendered_content",
  "date_sent",
  "edit_history",
  "is_me_message",
];

/**
 * May the user edit the message's content now (Zulip's validate_user_can_edit_message)?
 * Only its sender, where the organization allows editing, within the edit time limit
 * plus `bufferSeconds`.
 */
export function requireCanEditContent(
  realm: RealmSnapshot,
  user: UserRow,
  message: { sender_id: number; date_sent: DbBigInt },
  now: number,
  bufferSeconds: number,
): void {
  const realmRow = realm.realm;
  if (!bool(realmRow.allow_message_editing))
    throw badRequest("Your organization has turned off message editing");
  if (message.sender_id !== user.id) throw badRequest("You don't have permission to edit this message");
  const limit = realmRow.message_content_edit_limit_seconds;
  if (limit !== null && now - int(message.date_sent) > limit + bufferSeconds)
    throw badRequest("The time limit for editing this message has passed");
}

const unresolved = (topic: string) =>
  topic.startsWith(RESOLVED_PREFIX) ? topic.slice(RESOLVED_PREFIX.length) : topic;

/**
 * PATCH /messages/{id}: content edits (the sender, within the edit limit), topic edits
 * with propagate_mode (by can_move_messages_between_topics / can_resolve_topics) and
 * moves to another channel. Each edit is recorded in edit_history and sent as one
 * update_message event to everyone who has an edited message.
 */
export function checkEditMessage(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  messageId: number,
  request: EditRequest,
): Promise<void> {
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, realm);
    await accessMessage({ knex: tx.knex, world, user }, messageId);
    const message = await tx.knex("messages").where("id", messageId).first<EditedRow>(EDIT_COLUMNS);
    const realmRow = realm.realm;
    const mode = request.propagateMode;
    if (mode !== "change_one" && mode !== "change_later" && mode !== "change_all")
      throw badRequest("Invalid propagate_mode");

    if (request.content !== undefined) {
      requireCanEditContent(realm, user, message, tx.now, EDIT_LIMIT_BUFFER_SECONDS);
    }
    let topic =
      request.topic === undefined
        ? undefined
        : truncateTopic(validateTopic(request.topic, emptyTopicDisplayName(realmRow)));
    if (topic === message.topic) topic = undefined;
    const target =
      request.streamId === undefined || request.streamId === message.stream_id ? undefined : request.streamId;
    if (request.content === undefined && topic === undefined && target === undefined)
      throw badRequest("Nothing to change");
    if (message.stream_id === null && target !== undefined)
      throw badRequest("Direct messages cannot be moved to channels.");
    if (message.stream_id === null && topic !== undefined)
      throw badRequest("Direct messages cannot have topics.");
    if (mode !== "change_one" && topic === undefined && target === undefined)
      throw badRequest("Invalid propagate_mode without topic edit");
    if (target !== undefined) {
      if (request.content !== undefined)
        throw badRequest("Cannot change message content while changing channel");
      return moveToChannel(app, tx, world, user, message, target, topic ?? message.topic, mode);
    }
    if (topic !== undefined) validateTopicEdit(world, user, message, topic, tx.now);

    const edited = new Set<number>([message.id]);
    const history = { user_id: user.id, timestamp: tx.now };
    let content: ContentEdit | undefined;
    if (request.content !== undefined) {
      content = await editContent(app, tx, world, user, message, normalizeContent(request.content), history);
    }
    let topicChange: MessageEdit["topic"];
    if (topic !== undefined) {
      const channel = world.channels.channel(message.stream_id!)!;
      const targetHadMessages = await topicHasMessages(tx, channel.id, topic);
      const ids = await moveTopic(tx, message, topic, mode, history);
      for (const id of ids) edited.add(id);
      topicChange = { propagateMode: mode, orig: message.topic, renamed: topic };
      await doCarryTopicVisibility(tx, world, user, {
        source: channel,
        sourceTopic: message.topic,
        target: channel,
        targetTopic: topic,
        mode,
        targetHadMessages,
      });
    }
    const ids = [...edited].sort((a, b) => a - b);
    const holders = await tx
      .knex("user_messages")
      .whereIn("message_id", ids)
      .where("message_id", message.id)
      .select<Array<{ user_id: number; flags: number }>>("user_id", "flags");
    const others = (await tx
      .knex("user_messages")
      .whereIn("message_id", ids)
      .distinct()
      .pluck("user_id")) as number[];
    const perUser = new Map<number, Record<string, unknown>>();
    for (const userId of others) perUser.set(userId, { flags: [] });
    for (const row of holders) perUser.set(row.user_id, { flags: flagNames(row.flags) });
    const channel = message.stream_id === null ? undefined : world.channels.channel(message.stream_id);
    const event = updateMessageEvent({
      editorId: user.id,
      timestamp: tx.now,
      messageId: message.id,
      messageIds: ids,
      channel,
      topic: topicChange,
      content,
      emptyTopicName: emptyTopicDisplayName(realmRow),
    });
    tx.sendEventOnCommit(realm.id, event, perUser);
  });
}

/** Who may rename a topic: resolving needs can_resolve_topics, other edits can_move_…_topics. */
function validateTopicEdit(
  world: ChannelWorld,
  user: UserRow,
  message: EditedRow,
  topic: string,
  now: number,
): void {
  const { realm } = world;
  const channel = world.channels.channel(message.stream_id!);
  // "✔" alone (the stripped prefix) would resolve the empty topic.
  if (topic === RESOLVED_PREFIX.trim()) throw badRequest("General chat cannot be marked as resolved");
  const resolving = unresolved(topic) === unresolved(message.topic) && topic !== message.topic;
  if (resolving) {
    if (unresolved(topic) === "") throw badRequest("General chat cannot be marked as resolved");
    const may =
      userHasRealmPermission(realm, user, "can_resolve_topics_group") ||
      (channel !== undefined && userHasChannelPermission(realm, user, channel, "can_resolve_topics_group"));
    if (!may) throw badRequest("You don't have permission to resolve topics in this channel.");
    return;
  }
  const may =
    userHasRealmPermission(realm, user, "can_move_messages_between_topics_group") ||
    (channel !== undefined &&
      userHasChannelPermission(realm, user, channel, "can_move_messages_within_channel_group"));
  if (!may) throw badRequest("You don't have permission to edit this message");
  const limit = realm.realm.move_messages_within_stream_limit_seconds;
  if (
    !isModeratorOrAbove(user.role) &&
    limit !== null &&
    now - message.date_sent > limit + EDIT_LIMIT_BUFFER_SECONDS
  )
    throw badRequest("The time limit for editing this message's topic has passed.");
}

/** Re-renders, stores the edit, updates mention flags and the search index. */
async function editContent(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  user: UserRow,
  message: EditedRow,
  content: string,
  history: { user_id: number; timestamp: number },
): Promise<ContentEdit> {
  const rendered = await renderForSend(
    {
      knex: tx.knex,
      realm: world.realm,
      channels: world.channels,
      sender: user,
      realmUrl: realmUrl(app.config),
      now: () => new Date(app.clock.nowMs()),
    },
    content,
  );
  const entry = {
    ...history,
    prev_content: message.content,
    prev_rendered_content: message.rendered_content,
    prev_rendered_content_version: 1,
  };
  await tx
    .knex("messages")
    .where("id", message.id)
    .update({
      content,
      rendered_content: rendered.html,
      is_me_message: rendered.isMeMessage,
      has_link: rendered.hasLink,
      has_image: rendered.hasImage,
      last_edit_time: history.timestamp,
      edit_history: prependHistory(message.edit_history, entry),
    });
  // Mentions and alert words follow the new content: recompute each holder's bits.
  const alerted = (await app.sendRules.alertWordMatcher(tx.knex, world.realm.id)).usersAlerted(content);
  const groupMembers = new Set<number>();
  for (const groupId of rendered.mentionedGroupIds)
    for (const id of world.realm.recursiveMembers(groupId)) groupMembers.add(id);
  const holders = (await tx
    .knex("user_messages")
    .where("message_id", message.id)
    .pluck("user_id")) as number[];
  const byBits = new Map<number, number[]>();
  for (const userId of holders) {
    let bits = 0;
    if (rendered.mentionedUserIds.has(userId) || groupMembers.has(userId))
      bits |= MESSAGE_FLAG_BITS.mentioned;
    if (groupMembers.has(userId)) bits |= MESSAGE_FLAG_BITS.group_mentioned;
    if (rendered.mentionsChannelWildcard) bits |= MESSAGE_FLAG_BITS.stream_wildcard_mentioned;
    if (rendered.mentionsTopicWildcard) bits |= MESSAGE_FLAG_BITS.topic_wildcard_mentioned;
    if (alerted.has(userId)) bits |= MESSAGE_FLAG_BITS.has_alert_word;
    byBits.set(bits, [...(byBits.get(bits) ?? []), userId]);
  }
  for (const [bits, userIds] of byBits) {
    await tx
      .knex("user_messages")
      .where("message_id", message.id)
      .whereIn("user_id", userIds)
      .update({ flags: tx.knex.raw(`(flags & ${~RECOMPUTED_BITS & 0x7fffffff}) | ${bits}`) });
  }
  await reindexMessages(tx.knex, [{ id: message.id, topic: message.topic, text: htmlToText(rendered.html) }]);
  await doUpdateAttachmentClaims(
    tx,
    world,
    { id: message.id, realmId: world.realm.id, sender: user },
    rendered.potentialAttachmentPathIds,
  );
  return {
    orig_content: message.content,
    orig_rendered_content: message.rendered_content,
    content,
    rendered_content: rendered.html,
    is_me_message: rendered.isMeMessage,
  };
}

/** Renames the topic of the message and, by propagate_mode, of its topic's other messages. */
async function moveTopic(
  tx: Tx,
  message: EditedRow,
  topic: string,
  mode: PropagateMode,
  history: { user_id: number; timestamp: number },
): Promise<number[]> {
  const query = tx
    .knex("messages")
    .where({ stream_id: message.stream_id, topic_key: message.topic.toLowerCase() })
    .select<EditedRow[]>(EDIT_COLUMNS);
  if (mode === "change_one") query.where("id", message.id);
  else if (mode === "change_later") query.where("id", ">=", message.id);
  const rows = await query;
  // Resolving or unresolving is not a move (no last_moved_timestamp).
  const isMove = unresolved(topic) !== unresolved(message.topic);
  for (const row of rows) {
    const entry = { ...history, prev_topic: row.topic, topic };
    await tx
      .knex("messages")
      .where("id", row.id)
      .update({
        topic,
        topic_key: topic.toLowerCase(),
        edit_history: prependHistory(row.edit_history, entry),
        ...(isMove ? { last_moved_time: history.timestamp } : {}),
      });
  }
  await reindexMessages(
    tx.knex,
    rows.map((row) => ({ id: row.id, topic, text: htmlToText(row.rendered_content) })),
  );
  return rows.map((row) => row.id);
}

/** edit_history is stored newest first, as Zulip sends it. */
function prependHistory(stored: string | null, entry: Record<string, unknown>): string {
  const list = stored === null ? [] : (JSON.parse(stored) as unknown[]);
  return JSON.stringify([entry, ...list]);
}

/** GET /messages/{id}/history: the message's versions, oldest first. */
export async function messageHistory(
  app: App,
  realm: RealmSnapshot,
  user: UserRow,
  messageId: number,
): Promise<Array<Record<string, unknown>>> {
  if (!bool(realm.realm.allow_edit_history))
    throw badRequest("Message edit history is disabled in this organization");
  const world = await loadWorld(app, app.knex, realm);
  await accessMessage({ knex: app.knex, world, user }, messageId);
  const message = await app.knex("messages").where("id", messageId).first<EditedRow>(EDIT_COLUMNS);
  const edits = (
    message.edit_history === null ? [] : (JSON.parse(message.edit_history) as Array<Record<string, unknown>>)
  )
    .slice()
    .reverse();
  // Walk back from the current version to the original, then forward.
  let content = message.content;
  let rendered = message.rendered_content;
  let topic = message.topic;
  const versions: Array<Record<string, unknown>> = [];
  for (const edit of [...edits].reverse()) {
    versions.unshift({ ...edit, content, rendered_content: rendered, topic });
    if (typeof edit.prev_content === "string") content = edit.prev_content;
    if (typeof edit.prev_rendered_content === "string") rendered = edit.prev_rendered_content;
    if (typeof edit.prev_topic === "string") topic = edit.prev_topic;
  }
  versions.unshift({
    topic,
    content,
    rendered_content: rendered,
    timestamp: message.date_sent,
    user_id: message.sender_id,
  });
  for (const version of versions) delete version.prev_rendered_content_version;
  return versions;
}

/**
 * Moves the message (and, by propagate_mode, its topic's other messages the mover can
 * access) to another channel. Users who cannot read the new channel lose the messages
 * (delete_message); its subscribers who did not have them get them, read.
 */
async function moveToChannel(
  app: App,
  tx: Tx,
  world: ChannelWorld,
  user: UserRow,
  message: EditedRow,
  targetId: number,
  topic: string,
  mode: PropagateMode,
): Promise<void> {
  const { realm } = world;
  const source = world.channels.channel(message.stream_id!)!;
  const mayMove =
    userHasRealmPermission(realm, user, "can_move_messages_between_channels_group") ||
    userHasChannelPermission(realm, user, source, "can_move_messages_out_of_channel_group");
  if (!mayMove) throw badRequest("You don't have permission to move this message");
  const target = accessChannelById(world, user, targetId);
  requireCanPostToChannel(world, user, target);
  const limit = realm.realm.move_messages_between_streams_limit_seconds;
  if (
    !isModeratorOrAbove(user.role) &&
    limit !== null &&
    tx.now - message.date_sent > limit + EDIT_LIMIT_BUFFER_SECONDS
  )
    throw badRequest("The time limit for editing this message's channel has passed");

  const query = tx
    .knex("messages as m")
    .where({ "m.stream_id": source.id, "m.topic_key": message.topic.toLowerCase() })
    .select<EditedRow[]>(EDIT_COLUMNS.map((c) => `m.${c}`));
  if (mode === "change_one") query.where("m.id", message.id);
  else if (mode === "change_later") query.where("m.id", ">=", message.id);
  if (!canAccessChannelHistory(world, user, source))
    query.join("user_messages as um", "um.message_id", "m.id").where("um.user_id", user.id);
  const rows = await query;
  const ids = rows.map((r) => r.id).sort((a, b) => a - b);

  const oldHolders = new Set<number>();
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    for (const id of (await tx
      .knex("user_messages")
      .whereIn("message_id", part)
      .distinct()
      .pluck("user_id")) as number[])
      oldHolders.add(id);
  }
  const canRead = (userId: number) => {
    const holder = realm.user(userId);
    if (!holder || !bool(holder.is_active)) return false;
    return world.channels.isSubscribed(userId, target.id) || canAccessChannelHistory(world, holder, target);
  };
  const losers = [...oldHolders].filter((id) => !canRead(id));
  const gainers = world.channels.activeSubscriberIds(realm, target.id).filter((id) => !oldHolders.has(id));
  const targetHadMessages = await topicHasMessages(tx, target.id, topic);

  for (const row of rows) {
    const entry = {
      user_id: user.id,
      timestamp: tx.now,
      prev_stream: source.id,
      stream: target.id,
      ...(topic !== row.topic ? { prev_topic: row.topic, topic } : {}),
    };
    await tx
      .knex("messages")
      .where("id", row.id)
      .update({
        stream_id: target.id,
        recipient_id: target.recipient_id,
        topic,
        topic_key: topic.toLowerCase(),
        last_moved_time: tx.now,
        edit_history: prependHistory(row.edit_history, entry),
      });
  }
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    if (losers.length > 0)
      await tx.knex("user_messages").whereIn("message_id", part).whereIn("user_id", losers).delete();
    const added = part.flatMap((id) => gainers.map((userId) => [userId, id, MESSAGE_FLAG_BITS.read]));
    if (added.length > 0)
      await bulkInsert(tx.knex, "user_messages", ["user_id", "message_id", "flags"], added);
  }
  if (topic !== message.topic)
    await reindexMessages(
      tx.knex,
      rows.map((row) => ({ id: row.id, topic, text: htmlToText(row.rendered_content) })),
    );

  if (losers.length > 0) {
    const emptyTopicName = emptyTopicDisplayName(realm.realm);
    const event = deleteMessageEvent(ids, { id: source.id, topic: message.topic, emptyTopicName });
    tx.sendEventOnCommit(realm.id, event, losers);
  }
  await doCarryTopicVisibility(tx, world, user, {
    source,
    sourceTopic: message.topic,
    target,
    targetTopic: topic,
    mode,
    targetHadMessages,
  });
  const perUser = new Map<number, Record<string, unknown>>();
  const flags = await tx
    .knex("user_messages")
    .where("message_id", message.id)
    .select<Array<{ user_id: number; flags: number }>>("user_id", "flags");
  for (const row of flags) perUser.set(row.user_id, { flags: flagNames(row.flags) });
  const event = updateMessageEvent({
    editorId: user.id,
    timestamp: tx.now,
    messageId: message.id,
    messageIds: ids,
    channel: source,
    newChannelId: target.id,
    topic: {
      propagateMode: mode,
      orig: message.topic,
      ...(topic !== message.topic ? { renamed: topic } : {}),
    },
    emptyTopicName: emptyTopicDisplayName(realm.realm),
  });
  tx.sendEventOnCommit(realm.id, event, perUser);
  for (const channel of [source, target]) await refreshFirstMessageId(app, tx, world, channel);
}
