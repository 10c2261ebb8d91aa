import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest, botsNotAllowed, insufficientPermission, noSuchUser } from "../errors.js";
import { accessUserById } from "../lib/access-users.js";
import { isAdminRole } from "../world/roles.js";
import { resolveEmoji, type Emoji } from "../render/emoji.js";
import { activeUserIds } from "../lib/recipients.js";
import { userStatusEvent } from "../presenters/events/users.js";
import { doChangeUserSetting } from "./user-setting-change.js";

export interface UserStatusInput {
  /** Deprecated: sets presence_enabled to its negation. */
  away?: boolean;
  /** Already trimmed and at most 60 code points; "" clears. */
  statusText?: string;
  /** "" clears the emoji. */
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/** An emoji as stored when cleared. */
const NO_EMOJI: Emoji = { emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" };

/** POST /users/me/status: only the values passed change. Humans only. */
export async function checkUpdateUserStatus(app: App, user: UserRow, input: UserStatusInput): Promise<void> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  await updateStatus(app, user, input);
}

/**
 * POST /users/{user_id}/status: an administrator sets another user's status (Zulip's
 * update_user_status_admin, whose access_user_by_id(for_admin=True) refuses bots as
 * "No such user", deactivated users, and anyone but administrators).
 */
export async function checkUpdateUserStatusAsAdmin(
  app: App,
  actor: UserRow,
  targetId: number,
  input: Omit<UserStatusInput, "away">,
): Promise<void> {
  const snapshot = await app.realms.get(app.knex, actor.realm_id);
  const target = accessUserById(snapshot, targetId);
  if (bool(target.is_bot)) throw noSuchUser();
  if (!bool(target.is_active)) throw badRequest("User is deactivated");
  if (!isAdminRole(actor.role)) throw insufficientPermission();
  await updateStatus(app, target, input);
}

async function updateStatus(app: App, user: UserRow, input: UserStatusInput): Promise<void> {
  if (input.away === undefined && input.statusText === undefined && input.emojiName === undefined) {
    throw badRequest("Client did not pass any new values.");
  }
  await app.db.transaction(async (tx) => {
    let emoji: Emoji | undefined;
    if (input.emojiName === "") {
      emoji = NO_EMOJI;
    } else if (input.emojiName !== undefined) {
      emoji = await resolveEmoji(tx.knex, user.realm_id, {
        emoji_name: input.emojiName,
        ...(input.emojiCode !== undefined ? { emoji_code: input.emojiCode } : {}),
        ...(input.reactionType !== undefined ? { reaction_type: input.reactionType } : {}),
      });
    } else if (input.emojiCode || input.reactionType) {
      throw badRequest("Client must pass emoji_name if they pass either emoji_code or reaction_type.");
    }
    await doUpdateUserStatus(app, tx, user, { away: input.away, statusText: input.statusText, emoji });
  });
}

export async function doUpdateUserStatus(
  app: App,
  tx: Tx,
  user: UserRow,
  change: { away?: boolean; statusText?: string; emoji?: Emoji },
): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, user.realm_id);
  if (change.away !== undefined && bool(user.presence_enabled) === change.away) {
    await doChangeUserSetting(app, tx, user, "presence_enabled", !change.away);
  }
  const fields: Record<string, string> = {};
  if (change.statusText !== undefined) fields.status_text = change.statusText;
  if (change.emoji) Object.assign(fields, change.emoji);
  const updated = await tx
    .knex("user_status")
    .where({ user_id: user.id })
    .update({ ...fields, timestamp: tx.now });
  if (updated === 0) await tx.knex("user_status").insert({ user_id: user.id, timestamp: tx.now, ...fields });

  tx.sendEventOnCommit(user.realm_id, userStatusEvent(user.id, change), activeUserIds(snapshot));
}

/**
 * PATCH /settings changed presence_enabled, which user_status shows as `away` (its
 * deprecated alias). Zulip sends no user_status event then; chatd tells everyone, so a
 * client's user_status stays what a fresh /register would give. Only users with a
 * status row are listed there, so only they are told.
 */
export async function doTellStatusAway(app: App, tx: Tx, user: UserRow, away: boolean): Promise<void> {
  const row: { user_id: number } | undefined = await tx
    .knex("user_status")
    .where({ user_id: user.id })
    .first<{ user_id: number } | undefined>("user_id");
  if (!row) return;
  const snapshot = await app.realms.get(tx.knex, user.realm_id);
  tx.sendEventOnCommit(user.realm_id, userStatusEvent(user.id, { away }), activeUserIds(snapshot));
}
