import type { Knex } from "knex";
import { int, type DbBigInt } from "../db/rows.js";
import type { AttachmentFacts } from "../permissions/attachment-access.js";

/** Reads about uploaded files: rows, the messages linking them, space used. */

export interface AttachmentRow {
  id: number;
  realm_id: number;
  owner_id: number;
  path_id: string;
  file_name: string;
  size: DbBigInt;
  sha256: string;
  content_type: string;
  create_time: DbBigInt;
}

export interface LinkedMessage {
  id: number;
  date_sent: DbBigInt;
}

export function attachmentByPathId(knex: Knex, pathId: string): Promise<AttachmentRow | undefined> {
  return knex<AttachmentRow>("attachments").where({ path_id: pathId }).first();
}

/**
 * What the access rule needs about a file for one user (null: a spectator): the
 * messages linking it, each with whether the user received it.
 */
export async function attachmentFacts(
  knex: Knex,
  attachment: AttachmentRow,
  userId: number | null,
): Promise<AttachmentFacts> {
  const rows = await knex("attachment_messages as am")
    .join("messages as m", "m.id", "am.message_id")
    .leftJoin("user_messages as um", function () {
      this.on("um.message_id", "=", "m.id").andOn("um.user_id", "=", knex.raw("?", [userId ?? 0]));
    })
    .where("am.attachment_id", attachment.id)
    .select<Array<{ stream_id: number | null; received: number | null }>>(
      "m.stream_id",
      "um.user_id as received",
    );
  return {
    realmId: attachment.realm_id,
    ownerId: attachment.owner_id,
    messages: rows.map((row) => ({ streamId: row.stream_id, received: row.received !== null })),
  };
}

/** Zulip's currently_used_upload_space_bytes: every file of the organization, in bytes. */
export async function uploadSpaceUsed(knex: Knex, realmId: number): Promise<number> {
  const row: { total?: unknown } | undefined = await knex("attachments")
    .where({ realm_id: realmId })
    .sum({ total: "size" })
    .first();
  return Number(row?.total ?? 0);
}

/** A user's files, oldest first, each with the messages linking it. */
export async function attachmentsOwnedBy(
  knex: Knex,
  ownerId: number,
): Promise<Array<{ row: AttachmentRow; messages: LinkedMessage[] }>> {
  const rows = await knex<AttachmentRow>("attachments").where({ owner_id: ownerId }).orderBy("id");
  const links = await linkedMessages(
    knex,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({ row, messages: links.get(row.id) ?? [] }));
}

/** The messages linking each attachment, by attachment ID, in message order. */
export async function linkedMessages(
  knex: Knex,
  attachmentIds: number[],
): Promise<Map<number, LinkedMessage[]>> {
  const byAttachment = new Map<number, LinkedMessage[]>();
  for (let i = 0; i < attachmentIds.length; i += 500) {
    const rows = await knex("attachment_messages as am")
      .join("messages as m", "m.id", "am.message_id")
      .whereIn("am.attachment_id", attachmentIds.slice(i, i + 500))
      .orderBy("m.id")
      .select<Array<{ attachment_id: number; id: number; date_sent: DbBigInt }>>(
        "am.attachment_id",
        "m.id",
        "m.date_sent",
      );
    for (const row of rows) {
      const list = byAttachment.get(row.attachment_id) ?? [];
      list.push({ id: row.id, date_sent: int(row.date_sent) });
      byAttachment.set(row.attachment_id, list);
    }
  }
  return byAttachment;
}

type SecretName = "upload_token_key" | "avatar_salt";
const secrets = new WeakMap<Knex, Map<SecretName, string>>();

/** A server-wide random key made by the migrations (server_secrets); read once per pool. */
export async function serverSecret(knex: Knex, name: SecretName): Promise<string> {
  const known = secrets.get(knex)?.get(name);
  if (known !== undefined) return known;
  const row = await knex("server_secrets").where({ name }).first<{ value: string } | undefined>("value");
  if (!row) throw new Error(`server secret ${name} is missing`);
  const cache = secrets.get(knex) ?? new Map<SecretName, string>();
  cache.set(name, row.value);
  secrets.set(knex, cache);
  return row.value;
}
