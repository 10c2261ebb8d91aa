import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { convertSlackMarkup, type MarkupContext } from "./markup.js";
import { renderBlocksAndAttachments } from "./attachments.js";
import { zulipEmojiForSlackName } from "./emoji-names.js";
import type { FileConverter } from "./files.js";
import { IMPORT_CLIENT_ID, type RealmTables, type Row } from "./realm-tables.js";
import { type Json, arrayIn, objList, optObj, optStr, strList, timestamp } from "./slack-json.js";
import type { Conversation, SlackConversations } from "./channels.js";
import type { SlackUsers } from "./users.js";
import type { SlackZip } from "./slack-zip.js";
import { ThreadTopics, UNTHREADED_TOPIC } from "./topics.js";

/** Zulip's MESSAGE_BATCH_CHUNK_SIZE: messages per messages-NNNNNN.json. */
export const MESSAGES_PER_FILE = 1000;

/** Subtypes Zulip's importer drops: Zulip has no pins, and join/leave/rename notices are noise. */
const DROPPED_SUBTYPES = new Set([
  "pinned_item",
  "unpinned_item",
  "channel_join",
  "channel_leave",
  "channel_name",
]);
/** Subtypes whose text is an action ("started a call"), shown as "/me …" as Zulip does. */
const ME_SUBTYPES = new Set(["bot_add", "sh_room_created", "me_message"]);

/** Zulip's UserMessage flags: read, mentioned, is_private. */
const FLAG_READ = 1;
const FLAG_MENTIONED = 8;
const FLAG_PRIVATE = 2048;

const DAY_FILE = /^([^/]+)\/(\d{4}-\d{2}-\d{2})\.json$/;

export interface MessageStats {
  messages: number;
  files: number;
}

/**
 * The day files of every conversation, a date at a time in date order, each date's messages
 * in time order (Zulip's get_messages_iterator), converted and written in files of 1,000
 * messages with their UserMessage rows. Only one date's messages are in memory at once.
 */
export async function convertMessages(opts: {
  zip: SlackZip;
  outDir: string;
  realmId: number;
  tables: RealmTables;
  users: SlackUsers;
  conversations: SlackConversations;
  markup: MarkupContext;
  files: FileConverter;
  onDay?: (done: number, total: number) => void;
}): Promise<MessageStats> {
  const { zip, tables, users, conversations, markup, files } = opts;
  const dirsByDate = new Map<string, Conversation[]>();
  for (const name of zip.entries.keys()) {
    const match = DAY_FILE.exec(name);
    const conversation = match && conversations.byDir.get(match[1]!);
    if (!match || !conversation) continue;
    const list = dirsByDate.get(match[2]!) ?? [];
    list.push(conversation);
    dirsByDate.set(match[2]!, list);
  }
  const dates = [...dirsByDate.keys()].sort();
  const topics = new ThreadTopics();
  let nextMessageId = 1;
  let nextUserMessageId = 1;
  let fileNumber = 1;
  let batch: Row[] = [];
  let userMessages: Row[] = [];
  let total = 0;

  const flush = () => {
    if (batch.length === 0) return;
    const name = `messages-${String(fileNumber++).padStart(6, "0")}.json`;
    writeFileSync(
      join(opts.outDir, name),
      JSON.stringify({ zerver_message: batch, zerver_usermessage: userMessages }),
    );
    batch = [];
    userMessages = [];
  };

  for (const [dayIndex, date] of dates.entries()) {
    const day: Array<{ message: Json; where: string; conversation: Conversation; ts: number }> = [];
    for (const conversation of dirsByDate.get(date)!) {
      const file = `${conversation.dir}/${date}.json`;
      arrayIn(await zip.readJson(file), file).forEach((message, i) => {
        const where = `${file}[${i}]`;
        day.push({ message, where, conversation, ts: timestamp(message, "ts", where) });
      });
    }
    day.sort((a, b) => a.ts - b.ts);

    for (const { message, where, conversation, ts } of day) {
      if (message.user === "U00" || message.mimetype === "application/vnd.slack-docs") continue;
      const subtype = optStr(message, "subtype", where);
      if (subtype !== undefined && DROPPED_SUBTYPES.has(subtype)) continue;
      const fileObj = optObj(message, "file", where);
      const comment = optObj(message, "comment", where);
      const userField = optStr(message, "user", where);
      const botId = optStr(message, "bot_id", where);
      let senderId: number;
      if (subtype === "file_comment" && comment && typeof comment.user === "string")
        senderId = users.userFor(comment.user);
      else if (userField !== undefined) senderId = users.userFor(userField);
      else if (fileObj && typeof fileObj.user === "string") senderId = users.userFor(fileObj.user);
      else if (botId !== undefined) {
        // An integration's message: Slack keeps no user for it, only the bot and the name it posted as.
        const profile = optObj(message, "bot_profile", where);
        const name =
          optStr(message, "username", where) ?? (typeof profile?.name === "string" ? profile.name : "");
        senderId = users.botFor(botId, name);
      } else continue;

      const formatted = renderBlocksAndAttachments(message);
      const text = formatted !== "" ? formatted : (optStr(message, "text", where) ?? "");
      const converted = convertSlackMarkup(text, markup);
      let content = converted.content;
      if (subtype !== undefined && ME_SUBTYPES.has(subtype)) content = `/me ${content}`;

      const messageId = nextMessageId;
      const attached = await files.convert(
        message,
        where,
        messageId,
        senderId,
        users.emailOf.get(senderId) ?? "",
        ts,
      );
      // Zulip's normalize_body_for_import: no NUL bytes.
      content = [content, attached.content]
        .filter((part) => part !== "")
        .join("\n")
        .replace(/\0/g, "");
      if (content.trim() === "" || content.trim() === "/me") continue;
      nextMessageId++;

      const isChannel = conversation.kind === "channel";
      let recipientId = conversation.recipientId;
      let alsoRecipientId: number | null = null;
      if (conversation.kind === "dm") {
        const [a, b] = conversation.members as [number, number];
        const other = senderId === a ? b : a;
        recipientId = tables.personalRecipient.get(other)!;
        alsoRecipientId = tables.personalRecipient.get(senderId)!;
      }
      const threadTs = optStr(message, "thread_ts", where);
      const topic = !isChannel
        ? ""
        : threadTs === undefined
          ? UNTHREADED_TOPIC
          : topics.topicFor(`${recipientId}:${threadTs}`, Number(threadTs), content);

      const edited = optObj(message, "edited", where);
      const row: Row = {
        id: messageId,
        realm: opts.realmId,
        sender: senderId,
        recipient: recipientId,
        subject: topic,
        content,
        rendered_content: null,
        rendered_content_version: null,
        date_sent: ts,
        last_edit_time: edited ? Math.floor(timestamp(edited, "ts", `${where}.edited`)) : null,
        edit_history: null,
        sending_client: IMPORT_CLIENT_ID,
        has_attachment: attached.hasAttachment,
        has_image: attached.hasImage,
        has_link: converted.hasLink || attached.hasLink,
        is_channel_message: isChannel,
      };
      batch.push(row);
      total++;

      const mentioned = new Set(converted.mentionedUserIds);
      const flagsFor = (userId: number) =>
        FLAG_READ | (mentioned.has(userId) ? FLAG_MENTIONED : 0) | (isChannel ? 0 : FLAG_PRIVATE);
      for (const rid of alsoRecipientId !== null && alsoRecipientId !== recipientId
        ? [recipientId, alsoRecipientId]
        : [recipientId]) {
        for (const userId of [...tables.subscribers.get(rid)!].sort((x, y) => x - y)) {
          userMessages.push({
            id: nextUserMessageId++,
            user_profile: userId,
            message: messageId,
            flags_mask: flagsFor(userId),
          });
        }
      }

      // Skin-tone variants fold into one reaction per emoji and user, as in Zulip.
      const seen = new Set<string>();
      for (const [i, reaction] of objList(message, "reactions", where).entries()) {
        const at = `${where}.reactions[${i}]`;
        const emoji = zulipEmojiForSlackName(optStr(reaction, "name", at) ?? "");
        if (!emoji) continue;
        for (const slackUser of strList(reaction, "users", at)) {
          const userId = users.idOf.get(slackUser);
          const key = `${userId}:${emoji.emoji_code}`;
          if (userId === undefined || seen.has(key)) continue;
          seen.add(key);
          tables.addReaction(messageId, userId, emoji);
        }
      }
      if (batch.length === MESSAGES_PER_FILE) flush();
    }
    opts.onDay?.(dayIndex + 1, dates.length);
  }
  flush();
  return { messages: total, files: files.attachments.length };
}
