import type { Endpoint } from "../http/endpoint.js";
import { fetchApiKey, regenerateApiKey } from "./auth.js";
import { deleteQueue, getEvents, register } from "./events.js";
import { getServerSettings } from "./server-settings.js";
import {
  createUserGroup,
  deactivateUserGroup,
  getIsUserGroupMember,
  getUserGroupMembers,
  getUserGroups,
  getUserGroupSubgroups,
  updateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
} from "./user-groups.js";
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
  // user groups
  createUserGroup,
  getUserGroups,
  updateUserGroup,
  deactivateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
  getUserGroupMembers,
  getIsUserGroupMember,
  getUserGroupSubgroups,
];
