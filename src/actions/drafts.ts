import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import { bool, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest, resourceNotFound } from "../errors.js";
import type { WireDraft } from "../wire/records.js";
import { normalizeContent, truncateTopic } from "../lib/message-content.js";
import { accessChannelById } from "../permissions/channel-access.js";
import { presentDraft, type DraftRow } from "../presenters/drafts.js";
import { draftEvents } from "../presenters/events/user-data.js";
import type { RealmSnapshot } from "../world/realm.js";
import { directRecipientById } from "./message-addressee.js";

/**
 * Drafts synchronized between a user's clients (Zulip's zerver/lib/drafts.py): each is
 * checked like the message it would become (the channel must be accessible, the users
 * must exist), but nothing is rendered or sent.
 */

/** A draft as clients send it (Zulip's DraftData), already checked for shape. */
export interface DraftInput {
  type: WireDraft["type"];
  to: number[];
  topic: string;
  content: string;
  timestamp?: number | null;
}

type DraftFields = Omit<DraftRow, "id" | "user_id">;

/** The user's enable_drafts_synchronization: the one place that reads it. */
export function draftsSynchronizationEnabled(user: UserRow): boolean {
  return bool(user.enable_drafts_synchronization);
}

/** Zulip's draft_endpoint: every draft operation needs synchronization turned on. */
export function requireDraftsSynchronization(user: UserRow): void {
  if (!draftsSynchronizationEnabled(user)) throw badRequest("User has disabled synchronizing drafts.");
}

const draftDoesNotExist = () => resourceNotFound("Draft does not exist");

/**
 * Who a direct message draft is for, as Zulip's recipient_for_user_profiles decides:
 * one other user (or oneself), else a group, listed without the sender.
 */
function directDraftRecipients(realm: RealmSnapshot, user: UserRow, to: readonly number[]): number[] {
  const ids = new Set<number>();
  for (const id of to) {
    const recipient = directRecipientById(realm, id);
    if (!bool(recipient.is_active) && !bool(recipient.is_mirror_dummy)) {
      throw badRequest(`'${recipient.email}' is no longer using Zulip.`);
    }
    ids.add(recipient.id);
  }
  if (ids.size === 2 && ids.has(user.id)) ids.delete(user.id);
  if (ids.size === 1) return [...ids];
  ids.delete(user.id);
  return [...ids].sort((a, b) => a - b);
}

/** Zulip's further_validated_draft_dict: the stored fields, or the first problem. */
async function validatedDraft(app: App, user: UserRow, draft: DraftInput): Promise<DraftFields> {
  const content = normalizeContent(draft.content);
  const timestamp = Math.round((draft.timestamp ?? app.clock.nowMs() / 1000) * 1e6) / 1e6;
  // Not an invalid timestamp, but not one to keep either.
  if (timestamp < 0) throw badRequest("Timestamp must not be negative.");
  const fields = { content, last_edit_time: timestamp };
  if (draft.type === "stream") {
    const topic = truncateTopic(draft.topic);
    if (topic.includes("\u0000")) throw badRequest("Topic must not contain null bytes");
    if (draft.to.length !== 1) throw badRequest("Must specify exactly 1 channel ID for channel messages");
    const world = await loadWorld(app, app.knex, user.realm_id);
    const channel = accessChannelById(world, user, draft.to[0]!);
    return { ...fields, type: "stream", to_ids: JSON.stringify([channel.id]), topic };
  }
  if (draft.type === "private" && draft.to.length > 0) {
    const realm = await app.realms.get(app.knex, user.realm_id);
    const to = directDraftRecipients(realm, user, draft.to);
    return { ...fields, type: "private", to_ids: JSON.stringify(to), topic: "" };
  }
  // An unaddressed draft (or a direct message one without recipients yet).
  return { ...fields, type: "", to_ids: "[]", topic: "" };
}

async function accessDraft(tx: Tx, user: UserRow, draftId: number): Promise<DraftRow> {
  const row = await tx.knex<DraftRow>("drafts").where({ id: draftId, user_id: user.id }).first();
  if (!row) throw draftDoesNotExist();
  return row;
}

/** POST /drafts: all drafts are checked before any is saved; returns their IDs in order. */
export async function checkCreateDrafts(app: App, user: UserRow, drafts: DraftInput[]): Promise<number[]> {
  requireDraftsSynchronization(user);
  const fields: DraftFields[] = [];
  for (const draft of drafts) fields.push(await validatedDraft(app, user, draft));
  return app.db.transaction(async (tx) => {
    const created: DraftRow[] = [];
    for (const row of fields) {
      const id = await insertReturningId(tx.knex, "drafts", { user_id: user.id, ...row });
      created.push({ id, user_id: user.id, ...row });
    }
    tx.sendEventOnCommit(user.realm_id, draftEvents.add(created.map(presentDraft)), [user.id]);
    return created.map((row) => row.id);
  });
}

/** PATCH /drafts/{draft_id}: the draft is replaced as a whole. */
export async function checkEditDraft(
  app: App,
  user: UserRow,
  draftId: number,
  draft: DraftInput,
): Promise<void> {
  requireDraftsSynchronization(user);
  await app.db.transaction(async (tx) => {
    const row = await accessDraft(tx, user, draftId);
    // Reads only (the channel and user caches): no write happens before this.
    const fields = await validatedDraft(app, user, draft);
    await tx.knex("drafts").where({ id: row.id }).update(fields);
    tx.sendEventOnCommit(user.realm_id, draftEvents.update(presentDraft({ ...row, ...fields })), [user.id]);
  });
}

export async function checkDeleteDraft(app: App, user: UserRow, draftId: number): Promise<void> {
  requireDraftsSynchronization(user);
  await app.db.transaction(async (tx) => {
    const row = await accessDraft(tx, user, draftId);
    await tx.knex("drafts").where({ id: row.id }).delete();
    tx.sendEventOnCommit(user.realm_id, draftEvents.remove(row.id), [user.id]);
  });
}

/**
 * For turning enable_drafts_synchronization off: the server forgets the user's drafts
 * without events (clients keep theirs; nothing was deleted from their point of view),
 * as Zulip's do_change_user_setting does.
 */
export async function doForgetDrafts(tx: Tx, userId: number): Promise<void> {
  await tx.knex("drafts").where({ user_id: userId }).delete();
}
