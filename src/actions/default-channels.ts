import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { accessChannelById, isPrivate } from "../permissions/channel-access.js";
import { doAddDefaultChannels, doRemoveDefaultChannel } from "./channels.js";
import { loadWorld } from "../cache/world.js";

/** POST /default_streams: new users will join this (public) channel. Idempotent. */
export async function checkAddDefaultChannel(app: App, actor: UserRow, channelId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const channel = accessChannelById(world, actor, channelId);
    if (isPrivate(channel)) throw badRequest("Private channels cannot be made default.");
    await doAddDefaultChannels(app, tx, world, [channel]);
  });
}

/** DELETE /default_streams: the channel is no longer a default one. */
export async function checkRemoveDefaultChannel(app: App, actor: UserRow, channelId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const channel = accessChannelById(world, actor, channelId, { requireContentAccess: false });
    await doRemoveDefaultChannel(app, tx, world, channel);
  });
}
