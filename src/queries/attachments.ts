import type { App } from "../app.js";
import { loadWorld } from "../cache/world.js";
import type { UserRow } from "../db/rows.js";
import {
  attachmentByPathId,
  attachmentFacts,
  attachmentsOwnedBy,
  uploadSpaceUsed,
  type AttachmentRow,
} from "../lib/attachments.js";
import { spectatorMayAccessAttachment, userMayAccessAttachment } from "../permissions/attachment-access.js";
import { presentAttachment } from "../presenters/attachments.js";
import type { WireAttachment } from "../wire/records.js";

/** Who asked for a file: a user, or a spectator (no credentials) of a realm. */
export type FileViewer = { user: UserRow } | { spectatorRealmId: number };

export type FileAccess =
  { kind: "ok"; attachment: AttachmentRow } | { kind: "missing" } | { kind: "forbidden" };

/** The attachment rule (permissions/attachment-access.ts) for one request. */
export async function accessFile(app: App, viewer: FileViewer, pathId: string): Promise<FileAccess> {
  const attachment = await attachmentByPathId(app.knex, pathId);
  if (!attachment) return { kind: "missing" };
  const userId = "user" in viewer ? viewer.user.id : null;
  const realmId = "user" in viewer ? viewer.user.realm_id : viewer.spectatorRealmId;
  if (userId !== null && attachment.owner_id === userId) return { kind: "ok", attachment };
  if (attachment.realm_id !== realmId) return { kind: "forbidden" };
  const world = await loadWorld(app, app.knex, attachment.realm_id);
  const facts = await attachmentFacts(app.knex, attachment, userId);
  const allowed =
    "user" in viewer
      ? userMayAccessAttachment(world, viewer.user, facts)
      : spectatorMayAccessAttachment(world, facts, app.config.web_public_streams_enabled);
  return allowed ? { kind: "ok", attachment } : { kind: "forbidden" };
}

/** GET /attachments: the user's files and the organization's upload space used. */
export async function attachmentsOf(
  app: App,
  user: UserRow,
): Promise<{ attachments: WireAttachment[]; upload_space_used: number }> {
  const owned = await attachmentsOwnedBy(app.knex, user.id);
  return {
    attachments: owned.map(({ row, messages }) => presentAttachment(row, messages)),
    upload_space_used: await uploadSpaceUsed(app.knex, user.realm_id),
  };
}
