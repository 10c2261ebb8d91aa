import type { Endpoint } from "../http/endpoint.js";
import { fetchApiKey, regenerateApiKey } from "./auth.js";
import { deleteQueue, getEvents, register } from "./events.js";
import { getServerSettings } from "./server-settings.js";
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
];
