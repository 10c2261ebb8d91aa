import { join } from "node:path";
import type { Knex } from "knex";
import { zulipFlagsMask } from "./flags.js";
import { JsonTablesFile } from "./json-file.js";
import { booleanColumns, convertRow, pages, type Row, type TableMap } from "./rows.js";
import type { ExportScope } from "./scope.js";

/** Zulip's MESSAGE_BATCH_CHUNK_SIZE: messages per messages-NNNNNN.json file. */
export const MESSAGES_PER_FILE = 1000;

/** zerver_message from chatd's messages. */
const MESSAGE_MAP: TableMap = {
  foreignKeys: ["sender_id", "recipient_id", "realm_id"],
  // Zulip's Message keeps the topic in `subject` (its database column name).
  rename: { topic: "subject" },
  // stream_id and topic_key are derived (the recipient's channel, the topic's case fold).
  omit: ["stream_id", "topic_key"],
  chatdOnly: ["last_moved_time", "is_me_message"],
};

export interface MessageFilesResult {
  messages: number;
  files: number;
  /** Sending clients by name, numbered as they were met: Zulip's zerver_client. */
  clients: Map<string, number>;
}

/**
 * Writes messages-000001.json… (Zulip's export_partial_message_files and
 * export_usermessages_batch in one pass): each file holds up to 1,000 messages in id order
 * and the user_messages rows of the users `withUserMessages` accepts.
 */
export async function writeMessageFiles(
  knex: Knex,
  dir: string,
  scope: ExportScope,
  withUserMessages: (userId: number) => boolean,
): Promise<MessageFilesResult> {
  const booleans = await booleanColumns(knex, "messages");
  const clients = new Map<string, number>();
  let files = 0;
  let messages = 0;
  let userMessageId = 0;
  for await (const page of pages(
    () => scope.messages(knex("messages as m")).select("m.*"),
    "m.id",
    MESSAGES_PER_FILE,
  )) {
    files++;
    const file = new JsonTablesFile(join(dir, `messages-${String(files).padStart(6, "0")}.json`));
    await file.table("zerver_message");
    for (const row of page) {
      const client = typeof row.sending_client === "string" ? row.sending_client : "";
      if (!clients.has(client)) clients.set(client, clients.size + 1);
      const message = convertRow(row, MESSAGE_MAP, booleans);
      message.sending_client = clients.get(client);
      // Zulip's is_channel_message: the message went to a channel.
      message.is_channel_message = row.stream_id !== null && row.stream_id !== undefined;
      await file.row(message);
    }
    messages += page.length;
    await file.table("zerver_usermessage");
    const ids = page.map((r) => Number(r.id));
    const userMessages = await knex("user_messages")
      .whereIn("message_id", ids)
      .orderBy(["message_id", "user_id"])
      .select<Row[]>("user_id", "message_id", "flags");
    for (const um of userMessages) {
      if (!withUserMessages(Number(um.user_id))) continue;
      // chatd's user_messages has no id of its own (its key is user and message): numbered here.
      await file.row({
        id: ++userMessageId,
        user_profile: Number(um.user_id),
        message: Number(um.message_id),
        flags_mask: zulipFlagsMask(Number(um.flags)),
      });
    }
    await file.close();
  }
  return { messages, files, clients };
}
