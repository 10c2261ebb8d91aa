import { createHash, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { App } from "../app.js";
import { insertReturningId } from "../db/insert.js";
import type { UserRow } from "../db/rows.js";
import { JsonableError, badRequest, notAllowedForGuests, resourceNotFound } from "../errors.js";
import { serverSecret } from "../lib/attachments.js";
import { EMOJI_CONTENT_TYPES, badImage, resizeEmoji } from "../lib/images.js";
import {
  allCustomEmoji,
  customEmojiInfo,
  emojiBlobKey,
  stillFileName,
  type CustomEmojiRow,
} from "../lib/realm-emoji.js";
import { activeUserIds } from "../lib/recipients.js";
import { writeBlobsThenRecord } from "../lib/storage/write-then-record.js";
import { pythonStrip } from "../lib/message-content.js";
import type { UploadedFile } from "../lib/uploads/uploaded-file.js";
import { sniffContentType } from "../lib/uploads/content-type.js";
import { mayAddCustomEmoji, mayRemoveCustomEmoji } from "../permissions/custom-emoji.js";
import { realmEmojiEvents } from "../presenters/events/realm-features.js";
import { activeRealmEmojiByName } from "../render/emoji.js";
import { unicodeEmojiCode } from "../render/emoji-table.js";
import { isAdminRole, isGuestRole } from "../world/roles.js";

/**
 * Custom emoji: POST and DELETE /realm/emoji/<name> (Zulip's upload_emoji,
 * check_add_realm_emoji, delete_emoji and do_remove_realm_emoji). The image is cropped
 * to 64x64 in its own format (an animated one also gets a still PNG), stored under a
 * salted hash of the emoji's ID, and everyone is told. Deleting only deactivates: old
 * messages and reactions keep showing the emoji.
 */

const MIB = 1024 * 1024;

/** Zulip's MAX_EMOJI_FILE_SIZE_MIB (the max_emoji_file_size_mib setting). */
export const emojiUploadLimits = (app: App) => ({
  maxFileBytes: app.config.max_emoji_file_size_mib * MIB,
  tooLarge: () =>
    badRequest(`Uploaded file is larger than the allowed limit of ${app.config.max_emoji_file_size_mib} MiB`),
});

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": ".png",
  "image/gif": ".gif",
  "image/jpeg": ".jpg",
  "image/webp": ".webp",
  "image/avif": ".avif",
};

/** Zulip's check_valid_emoji_name. */
export function validateEmojiName(name: string): void {
  if (name === "") throw badRequest("Emoji name is missing");
  if (/^[0-9a-z]([0-9a-z_-]*[0-9a-z])?$/.test(name)) return;
  if (/^[0-9a-z_-]*$/.test(name)) throw badRequest("Emoji names must end with either a letter or digit.");
  throw badRequest(
    "Emoji names must contain only lowercase alphanumeric characters, underscore, and hyphen.",
  );
}

const nameTaken = () => badRequest("A custom emoji with this name already exists.");

/**
 * Zulip's get_emoji_file_name: salted, so emoji files cannot be enumerated. The files are
 * written before the row exists, so a random nonce stands for Zulip's emoji ID.
 */
function emojiFileName(salt: string, nonce: string, contentType: string): string {
  const hash = createHash("sha256").update(`${salt}${nonce}`).digest("hex").slice(0, 32);
  return `${hash}${EXTENSIONS[contentType]!}`;
}

export async function checkAddRealmEmoji(
  app: App,
  user: UserRow,
  rawName: string,
  files: readonly UploadedFile[],
): Promise<void> {
  if (isGuestRole(user.role)) throw notAllowedForGuests();
  const name = pythonStrip(rawName).replace(/ /g, "_");
  validateEmojiName(name);
  const realm = await app.realms.get(app.knex, user.realm_id);
  if (!mayAddCustomEmoji(realm, user)) throw badRequest("Insufficient permission");
  if (await activeRealmEmojiByName<CustomEmojiRow>(app.knex, user.realm_id, name)) throw nameTaken();
  if (files.length !== 1) throw badRequest("You must upload exactly one file.");
  if (unicodeEmojiCode(name) !== undefined && !isAdminRole(user.role)) {
    throw badRequest("Only administrators can override built-in emoji.");
  }
  const file = files[0]!;
  const contentType = await sniffContentType(file.path);
  if (!EMOJI_CONTENT_TYPES.has(contentType)) throw badImage("Invalid image format");
  const resized = await resizeEmoji(
    await readFile(file.path),
    contentType as Parameters<typeof resizeEmoji>[1],
  );
  const salt = await serverSecret(app.knex, "avatar_salt");
  const fileName = emojiFileName(salt, randomUUID(), contentType);
  const blobs = [
    [emojiBlobKey(user.realm_id, fileName), resized.image] as const,
    ...(resized.still
      ? [[emojiBlobKey(user.realm_id, stillFileName(fileName)), resized.still] as const]
      : []),
  ];
  await writeBlobsThenRecord(app.uploads, blobs, () =>
    app.db.transaction(async (tx) => {
      if (await activeRealmEmojiByName<CustomEmojiRow>(tx.knex, user.realm_id, name)) throw nameTaken();
      const emojiId = await insertReturningId(tx.knex, "realm_emoji", {
        realm_id: user.realm_id,
        name,
        author_id: user.id,
        file_name: fileName,
        is_animated: resized.still !== null,
        deactivated: false,
      });
      const row = await tx.knex<CustomEmojiRow>("realm_emoji").where({ id: emojiId }).first();
      if (!row) throw new JsonableError("The emoji could not be saved.", "BAD_REQUEST", 500);
      const all = await allCustomEmoji(tx.knex, user.realm_id);
      tx.sendEventOnCommit(
        user.realm_id,
        realmEmojiEvents.add(customEmojiInfo(row), all),
        activeUserIds(realm),
      );
    }),
  );
}

export async function checkRemoveRealmEmoji(app: App, user: UserRow, name: string): Promise<void> {
  await app.db.transaction(async (tx) => {
    const emoji = await activeRealmEmojiByName<CustomEmojiRow>(tx.knex, user.realm_id, name);
    if (!emoji) throw resourceNotFound(`Emoji '${name}' does not exist`);
    if (!mayRemoveCustomEmoji(user, emoji.author_id)) {
      throw badRequest("Must be an organization administrator or emoji author");
    }
    await tx.knex("realm_emoji").where({ id: emoji.id }).update({ deactivated: true });
    const all = await allCustomEmoji(tx.knex, user.realm_id);
    const snapshot = await app.realms.get(tx.knex, user.realm_id);
    tx.sendEventOnCommit(
      user.realm_id,
      realmEmojiEvents.deactivated(String(emoji.id), all),
      activeUserIds(snapshot),
    );
  });
}
