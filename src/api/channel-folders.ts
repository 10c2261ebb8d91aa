import {
  checkCreateChannelFolder,
  checkReorderChannelFolders,
  checkUpdateChannelFolder,
} from "../actions/channel-folders.js";
import { bool } from "../db/rows.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, p, pathInt } from "../params.js";
import { sortedFolders } from "../queries/subscriptions.js";
import { presentChannelFolder } from "../presenters/channels.js";
import { LIMITS } from "../lib/realm-limits.js";

const folderDescription = () => p.str({ maxLength: LIMITS.max_channel_folder_description_length });

export const createChannelFolder = defineEndpoint({
  method: "POST",
  path: "/channel_folders/create",
  auth: "admin",
  params: { name: p.str(), description: folderDescription() },
  async handler({ app, user, params }) {
    return { channel_folder_id: await checkCreateChannelFolder(app, user, params.name, params.description) };
  },
});

export const getChannelFolders = defineEndpoint({
  method: "GET",
  path: "/channel_folders",
  auth: "user",
  params: { include_archived: p.bool().default(false) },
  async handler({ app, realm, params }) {
    const channels = await app.channels.get(app.knex, realm.id);
    const folders = sortedFolders(channels).filter((f) => params.include_archived || !bool(f.is_archived));
    return { channel_folders: folders.map(presentChannelFolder) };
  },
});

export const reorderChannelFolders = defineEndpoint({
  method: "PATCH",
  path: "/channel_folders",
  auth: "admin",
  params: { order: p.listOf(validate.int()) },
  async handler({ app, user, params }) {
    await checkReorderChannelFolders(app, user, params.order);
    return {};
  },
});

export const updateChannelFolder = defineEndpoint({
  method: "PATCH",
  path: "/channel_folders/:channel_folder_id",
  auth: "admin",
  params: {
    channel_folder_id: pathInt(),
    name: p.str().optional(),
    description: folderDescription().optional(),
    is_archived: p.bool().optional(),
  },
  async handler({ app, user, params }) {
    await checkUpdateChannelFolder(app, user, params.channel_folder_id, {
      name: params.name,
      description: params.description,
      is_archived: params.is_archived,
    });
    return {};
  },
});
