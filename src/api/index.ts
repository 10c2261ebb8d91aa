import type { Endpoint } from "../http/endpoint.js";
import { fetchApiKey, regenerateApiKey } from "./auth.js";
import {
  createChannelFolder,
  getChannelFolders,
  reorderChannelFolders,
  updateChannelFolder,
} from "./channel-folders.js";
import { deleteQueue, getEvents, register } from "./events.js";
import { getServerSettings } from "./server-settings.js";
import {
  addDefaultStream,
  archiveStream,
  createChannel,
  getStream,
  getStreamId,
  getStreams,
  getSubscribers,
  removeDefaultStream,
  updateStream,
} from "./streams.js";
import {
  getSubscriptionStatus,
  getSubscriptions,
  subscribe,
  unsubscribe,
  updateSubscriptionProperties,
} from "./subscriptions.js";
import { getOwnUser, getUser, getUsers } from "./users.js";

/** Every endpoint the server serves under /api/v1. */
export const ENDPOINTS: readonly Endpoint[] = [
  // core
  getServerSettings,
  fetchApiKey,
  regenerateApiKey,
  register,
  getEvents,
  deleteQueue,
  // users
  getOwnUser,
  getUsers,
  getUser,
  // channels
  subscribe,
  unsubscribe,
  getSubscriptions,
  updateSubscriptionProperties,
  getSubscriptionStatus,
  getStreams,
  getStream,
  getStreamId,
  getSubscribers,
  createChannel,
  updateStream,
  archiveStream,
  addDefaultStream,
  removeDefaultStream,
  // channel folders
  createChannelFolder,
  getChannelFolders,
  reorderChannelFolders,
  updateChannelFolder,
];
