import { createHash, randomUUID } from "node:crypto";
import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { JsonableError, badRequest } from "../errors.js";
import type { UploadedFile } from "../lib/uploads/uploaded-file.js";
import { serverSecret } from "../lib/attachments.js";
import { DEFAULT_AVATAR_SIZE, MEDIUM_AVATAR_SIZE, resizeAvatar } from "../lib/images.js";
import { activeUserIds } from "../lib/recipients.js";
import { writeBlobsThenRecord } from "../lib/storage/write-then-record.js";
import { readFile } from "node:fs/promises";
import { VIEWER_SEES_EMAIL, realmUserEvents } from "../presenters/events/users.js";
import { avatarUrl, clientMayComputeGravatar, gravatarUrl, uploadedAvatarUrl } from "../presenters/users.js";
import { isAdminRole } from "../world/roles.js";

/**
 * POST and DELETE /users/me/avatar (Zulip's set_avatar_backend, delete_avatar_backend,
 * do_change_avatar_fields): the image is cropped to 100x100 and 500x500 PNGs, stored
 * under a salted hash of the user and the new avatar_version, and everyone is told.
 */

const MIB = 1024 * 1024;

export const avatarLimits = (app: App) => ({
  maxFileBytes: app.config.max_avatar_file_size_mib * MIB,
  tooLarge: () =>
    new JsonableError(
      `Uploaded file is larger than the allowed limit of ${app.config.max_avatar_file_size_mib} MiB`,
      "PAYLOAD_TOO_LARGE",
      413,
    ),
});

function requireAvatarChangesAllowed(user: UserRow, realmDisabled: boolean): void {
  if (realmDisabled && !isAdminRole(user.role)) {
    throw badRequest("Avatar changes are disabled in this organization.");
  }
}

/**
 * Zulip's user_avatar_hash: the salt keeps avatar URLs from being guessed. The files are
 * written before the transaction, so a random nonce (not the new avatar_version) makes
 * each upload's name its own.
 */
function avatarFileBase(salt: string, user: UserRow, nonce: string): string {
  const hash = createHash("sha256").update(`${user.id}:${nonce}:${salt}`).digest("hex").slice(0, 40);
  return `${user.realm_id}/${hash}`;
}

const avatarKeys = (base: string) => [`avatars/${base}.png`, `avatars/${base}-medium.png`];

export async function checkSetAvatar(
  app: App,
  user: UserRow,
  files: readonly UploadedFile[],
): Promise<string> {
  if (files.length !== 1) throw badRequest("You must upload exactly one avatar.");
  const realm = await app.realms.get(app.knex, user.realm_id);
  requireAvatarChangesAllowed(user, bool(realm.realm.avatar_changes_disabled));
  const original = await readFile(files[0]!.path);
  const small = await resizeAvatar(original, DEFAULT_AVATAR_SIZE);
  const medium = await resizeAvatar(original, MEDIUM_AVATAR_SIZE);
  const salt = await serverSecret(app.knex, "avatar_salt");
  const base = avatarFileBase(salt, user, randomUUID());
  const [smallKey, mediumKey] = avatarKeys(base);
  const blobs = [[smallKey!, small] as const, [mediumKey!, medium] as const];
  const updated = await writeBlobsThenRecord(app.uploads, blobs, () =>
    app.db.transaction(async (tx) => {
      const current = await tx.knex<UserRow>("users").where({ id: user.id }).first();
      if (!current) throw new Error("user vanished");
      return changeAvatarFields(app, tx, current, {
        avatar_source: "U",
        avatar_version: current.avatar_version + 1,
        avatar_file: base,
      });
    }),
  );
  return uploadedAvatarUrl(updated)!;
}

export async function checkDeleteAvatar(app: App, user: UserRow): Promise<string> {
  const realm = await app.realms.get(app.knex, user.realm_id);
  requireAvatarChangesAllowed(user, bool(realm.realm.avatar_changes_disabled));
  const updated = await app.db.transaction(async (tx) => {
    const current = await tx.knex<UserRow>("users").where({ id: user.id }).first();
    if (!current) throw new Error("user vanished");
    return changeAvatarFields(app, tx, current, {
      avatar_source: "G",
      avatar_version: current.avatar_version + 1,
      avatar_file: null,
    });
  });
  return avatarUrl(updated, false)!;
}

/** Zulip's do_change_avatar_fields: the row, the realm_user event, the old files removed. */
async function changeAvatarFields(
  app: App,
  tx: Parameters<Parameters<App["db"]["transaction"]>[0]>[0],
  current: UserRow,
  change: Pick<UserRow, "avatar_source" | "avatar_version" | "avatar_file">,
): Promise<UserRow> {
  await tx.knex("users").where({ id: current.id }).update(change);
  tx.afterCommit(() => app.realms.invalidate(current.realm_id));
  const updated: UserRow = { ...current, ...change };
  const snapshot = await app.realms.get(tx.knex, current.realm_id);
  const person = {
    user_id: current.id,
    avatar_source: updated.avatar_source,
    avatar_url: avatarUrl(updated, false) ?? gravatarUrl(updated.delivery_email, updated.avatar_version),
    avatar_url_medium:
      avatarUrl(updated, false, true) ?? gravatarUrl(updated.delivery_email, updated.avatar_version, true),
    avatar_version: updated.avatar_version,
  };
  const viewers = activeUserIds(snapshot);
  tx.sendEventOnCommit(
    current.realm_id,
    realmUserEvents.update(person),
    new Map(
      [...viewers].map((id) => {
        const viewer = snapshot.user(id) ?? null;
        return [id, { [VIEWER_SEES_EMAIL]: clientMayComputeGravatar(viewer, updated) }];
      }),
    ),
  );
  const previous = current.avatar_file;
  if (previous) {
    // The old version's files go, unless a backup is copying (they are small; left then).
    tx.afterCommit(() => {
      void (async () => {
        if (await app.uploads.deletionsPaused()) return;
        for (const key of avatarKeys(previous)) await app.uploads.delete(key);
      })().catch((err: unknown) => app.logger.error("removing an old avatar failed", err));
    });
  }
  return updated;
}
