import { randomBytes } from "node:crypto";
import type { Knex } from "knex";

/**
 * Uploaded files (Zulip's Attachment, ImageAttachment and the attachment<->message link).
 *
 * - attachments: one row per upload. `path_id` is the file's URL path under /user_uploads
 *   ("<realm_id>/<2 hex>/<24 random>/<name>"); the bytes live in the upload store under
 *   their SHA-256 (`sha256`), so identical files share one copy. `content_type` is what
 *   the bytes say, never the client's word.
 * - attachment_messages: which messages link which attachments (claims); rows go with
 *   either side.
 * - image_attachments: images whose header decoded, with their original size and the
 *   thumbnails made so far (JSON list, Zulip's thumbnail_metadata).
 * - users.avatar_file: where an uploaded avatar's files are ("<realm_id>/<salted hash>").
 * - server_secrets: random keys made once per installation (signing temporary file URLs,
 *   salting avatar file names), so they travel with the database in a backup.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("attachments", (t) => {
    t.increments("id");
    t.integer("realm_id").notNullable().references("realms.id");
    t.integer("owner_id").notNullable().references("users.id");
    t.string("path_id", 500).notNullable().unique();
    t.text("file_name").notNullable();
    t.bigInteger("size").notNullable();
    t.string("sha256", 64).notNullable();
    t.string("content_type", 200).notNullable();
    t.bigInteger("create_time").notNullable();
    t.index(["owner_id", "id"]);
    t.index(["realm_id"]);
    t.index(["sha256"]);
    t.index(["create_time"]);
  });
  await knex.schema.createTable("attachment_messages", (t) => {
    t.integer("attachment_id").notNullable().references("attachments.id").onDelete("CASCADE");
    t.integer("message_id").notNullable().references("messages.id").onDelete("CASCADE");
    t.primary(["attachment_id", "message_id"]);
    t.index(["message_id"]);
  });
  await knex.schema.createTable("image_attachments", (t) => {
    t.increments("id");
    t.integer("attachment_id").notNullable().unique().references("attachments.id").onDelete("CASCADE");
    t.integer("original_width_px").notNullable();
    t.integer("original_height_px").notNullable();
    t.integer("frames").notNullable();
    t.text("thumbnail_metadata").notNullable().defaultTo("[]");
  });
  await knex.schema.alterTable("users", (t) => {
    t.string("avatar_file", 100).nullable();
  });
  await knex.schema.createTable("server_secrets", (t) => {
    t.string("name", 100).primary();
    t.string("value", 200).notNullable();
  });
  await knex("server_secrets").insert([
    { name: "upload_token_key", value: randomBytes(32).toString("hex") },
    { name: "avatar_salt", value: randomBytes(32).toString("hex") },
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("server_secrets");
  await knex.schema.alterTable("users", (t) => {
    t.dropColumn("avatar_file");
  });
  await knex.schema.dropTable("image_attachments");
  await knex.schema.dropTable("attachment_messages");
  await knex.schema.dropTable("attachments");
}
