import type { App } from "../app.js";
import type { ChannelFolderRow } from "../db/channel-rows.js";
import { insertReturningId } from "../db/insert.js";
import { bool, type UserRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import type { ChannelSnapshot } from "../world/channels.js";
import { validateChannelFolderName } from "../lib/channel-validation.js";
import type { RealmSnapshot } from "../world/realm.js";
import { presentChannelFolder } from "../presenters/channels.js";
import { channelFolderEvents } from "../presenters/events/channels.js";
import { renderMarkdown } from "../render/markdown.js";
import { invalidFolderId, invalidateChannels } from "./channels.js";
import { loadWorld } from "../cache/world.js";

/** Folders are everybody's business: every active user, guests included, is told. */
const folderEventRecipients = (realm: RealmSnapshot) =>
  [...realm.users].filter((u) => bool(u.is_active)).map((u) => u.id);

/** A folder name nobody uses yet, case-insensitively, archived folders included. */
function validateFolderNameAvailable(channels: ChannelSnapshot, name: string): void {
  const key = name.toLowerCase();
  for (const folder of channels.folders.values()) {
    if (folder.name.toLowerCase() === key) throw badRequest("Channel folder name already in use");
  }
}

/** POST /channel_folders/create (administrators): returns the new folder's ID. */
export async function checkCreateChannelFolder(
  app: App,
  actor: UserRow,
  rawName: string,
  description: string,
): Promise<number> {
  const name = validateChannelFolderName(rawName);
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    validateFolderNameAvailable(world.channels, name);
    return doCreateChannelFolder(app, tx, world.realm, world.channels, actor, name, description);
  });
}

/** Inserts a folder at the end of the order and tells everyone. */
export async function doCreateChannelFolder(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  channels: ChannelSnapshot,
  creator: UserRow | null,
  name: string,
  description: string,
): Promise<number> {
  const realmId = realm.id;
  const order = Math.max(-1, ...[...channels.folders.values()].map((f) => f.order)) + 1;
  const id = await insertReturningId(tx.knex, "channel_folders", {
    realm_id: realmId,
    name,
    description,
    rendered_description: renderMarkdown(description),
    date_created: tx.now,
    creator_id: creator?.id ?? null,
    order,
    is_archived: false,
  });
  invalidateChannels(app, tx, realmId);
  const folder = (await tx.knex<ChannelFolderRow>("channel_folders").where({ id }).first())!;
  tx.sendEventOnCommit(
    realmId,
    channelFolderEvents.add(presentChannelFolder(folder)),
    folderEventRecipients(realm),
  );
  return id;
}

export interface UpdateChannelFolderRequest {
  name?: string;
  description?: string;
  is_archived?: boolean;
}

/**
 * PATCH /channel_folders/{id} (administrators): name, description, archiving. Unchanged
 * values are no-ops; each change is one event.
 */
export async function checkUpdateChannelFolder(
  app: App,
  actor: UserRow,
  folderId: number,
  req: UpdateChannelFolderRequest,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const folder = world.channels.folders.get(folderId);
    if (!folder) throw invalidFolderId();
    const changes: Array<Record<string, unknown>> = [];
    const columns: Partial<ChannelFolderRow> = {};
    if (req.name !== undefined && req.name.trim() !== folder.name) {
      const name = validateChannelFolderName(req.name);
      validateFolderNameAvailable(world.channels, name);
      columns.name = name;
      changes.push({ name });
    }
    if (req.description !== undefined && req.description !== folder.description) {
      columns.description = req.description;
      columns.rendered_description = renderMarkdown(req.description);
      changes.push({ description: columns.description, rendered_description: columns.rendered_description });
    }
    if (req.is_archived !== undefined && req.is_archived !== bool(folder.is_archived)) {
      if (req.is_archived && [...world.channels.channels.values()].some((c) => c.folder_id === folderId)) {
        throw badRequest("You need to remove all the channels from this folder to archive it.");
      }
      columns.is_archived = req.is_archived;
      changes.push({ is_archived: req.is_archived });
    }
    await doUpdateChannelFolder(app, tx, world.realm, folderId, columns, changes);
  });
}

/** Writes a folder's changes; each change (name, description, archived) is one event. */
export async function doUpdateChannelFolder(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  folderId: number,
  columns: Partial<ChannelFolderRow>,
  changes: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  if (changes.length === 0) return;
  await tx.knex("channel_folders").where({ id: folderId }).update(columns);
  invalidateChannels(app, tx, realm.id);
  for (const data of changes) {
    tx.sendEventOnCommit(realm.id, channelFolderEvents.update(folderId, data), folderEventRecipients(realm));
  }
}

/** PATCH /channel_folders (administrators): `order` lists every folder, archived ones too. */
export async function checkReorderChannelFolders(
  app: App,
  actor: UserRow,
  order: readonly number[],
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const ids = new Set(order);
    const all = world.channels.folders;
    if (ids.size !== order.length || ids.size !== all.size || order.some((id) => !all.has(id))) {
      throw badRequest("Invalid order mapping");
    }
    await doReorderChannelFolders(app, tx, world.realm, world.channels, order);
  });
}

/** Gives every folder its position in `order` and tells everyone. */
export async function doReorderChannelFolders(
  app: App,
  tx: Tx,
  realm: RealmSnapshot,
  channels: ChannelSnapshot,
  order: readonly number[],
): Promise<void> {
  for (const [index, id] of order.entries()) {
    if (channels.folders.get(id)?.order !== index) {
      await tx.knex("channel_folders").where({ id }).update({ order: index });
    }
  }
  invalidateChannels(app, tx, realm.id);
  tx.sendEventOnCommit(realm.id, channelFolderEvents.reorder([...order]), folderEventRecipients(realm));
}
