import {
  checkCreateUserGroup,
  checkDeactivateUserGroup,
  checkUpdateUserGroup,
  checkUpdateUserGroupMembers,
} from "../actions/user-groups.js";
import { bool } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, p, pathInt } from "../params.js";
import { accessUserById } from "../lib/access-users.js";
import {
  validateGroupSettingUpdateFormat,
  validateGroupSettingFormat,
} from "../permissions/group-setting-values.js";
import { isUserInGroup } from "../permissions/group-settings.js";
import {
  accessUserGroupToRead,
  requireMemberOrAdmin,
  userGroupMemberIds,
  userGroupSubgroupIds,
} from "../permissions/user-groups.js";
import { presentUserGroups } from "../presenters/user-groups.js";

/**
 * User groups (Zulip's zerver/views/user_groups.py). Guests are refused everywhere but
 * deactivation (where they simply lack permission); bots too, except on the update,
 * members and subgroups endpoints, which they may use from feature level 496.
 */

const settingValue = () => p.json(validateGroupSettingFormat).optional();
const settingUpdate = () => p.json(validateGroupSettingUpdateFormat).optional();
const ids = () => p.listOf(validate.int()).optional();

export const createUserGroup = defineEndpoint({
  method: "POST",
  path: "/user_groups/create",
  auth: "user",
  params: {
    name: p.str(),
    description: p.str(),
    members: p.listOf(validate.int()),
    subgroups: ids(),
    can_add_members_group: settingValue(),
    can_join_group: settingValue(),
    can_leave_group: settingValue(),
    can_manage_group: settingValue(),
    can_mention_group: settingValue(),
    can_remove_members_group: settingValue(),
  },
  async handler({ app, user, params }) {
    const { name, description, members, subgroups, ...settings } = params;
    const groupId = await checkCreateUserGroup(app, user, {
      name,
      description,
      members,
      subgroups,
      settings,
    });
    return { group_id: groupId };
  },
});

export const getUserGroups = defineEndpoint({
  method: "GET",
  path: "/user_groups",
  auth: "user",
  params: { include_deactivated_groups: p.bool().default(false) },
  handler({ user, realm, params }) {
    requireMemberOrAdmin(user);
    const includeDeactivated = params.include_deactivated_groups;
    return Promise.resolve({ user_groups: presentUserGroups(realm, { includeDeactivated }) });
  },
});

export const updateUserGroup = defineEndpoint({
  method: "PATCH",
  path: "/user_groups/:user_group_id",
  auth: "user",
  params: {
    user_group_id: pathInt(),
    name: p.str().optional(),
    description: p.str().optional(),
    deactivated: p.bool().optional(),
    can_add_members_group: settingUpdate(),
    can_join_group: settingUpdate(),
    can_leave_group: settingUpdate(),
    can_manage_group: settingUpdate(),
    can_mention_group: settingUpdate(),
    can_remove_members_group: settingUpdate(),
  },
  async handler({ app, user, params }) {
    const { user_group_id, name, description, deactivated, ...settings } = params;
    await checkUpdateUserGroup(app, user, user_group_id, { name, description, deactivated, settings });
    return {};
  },
});

export const deactivateUserGroup = defineEndpoint({
  method: "POST",
  path: "/user_groups/:user_group_id/deactivate",
  auth: "user",
  params: { user_group_id: pathInt() },
  async handler({ app, user, params }) {
    await checkDeactivateUserGroup(app, user, params.user_group_id);
    return {};
  },
});

export const updateUserGroupMembers = defineEndpoint({
  method: "POST",
  path: "/user_groups/:user_group_id/members",
  auth: "user",
  params: {
    user_group_id: pathInt(),
    add: ids(),
    delete: ids(),
    add_subgroups: ids(),
    delete_subgroups: ids(),
  },
  async handler({ app, user, params }) {
    await checkUpdateUserGroupMembers(
      app,
      user,
      params.user_group_id,
      {
        add: params.add,
        delete: params.delete,
        addSubgroups: params.add_subgroups,
        deleteSubgroups: params.delete_subgroups,
      },
      'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
    );
    return {};
  },
});

export const updateUserGroupSubgroups = defineEndpoint({
  method: "POST",
  path: "/user_groups/:user_group_id/subgroups",
  auth: "user",
  params: { user_group_id: pathInt(), add: ids(), delete: ids() },
  async handler({ app, user, params }) {
    await checkUpdateUserGroupMembers(
      app,
      user,
      params.user_group_id,
      { addSubgroups: params.add, deleteSubgroups: params.delete },
      'Nothing to do. Specify at least one of "add" or "delete".',
    );
    return {};
  },
});

export const getUserGroupMembers = defineEndpoint({
  method: "GET",
  path: "/user_groups/:user_group_id/members",
  auth: "user",
  params: { user_group_id: pathInt(), direct_member_only: p.bool().default(false) },
  handler({ user, realm, params }) {
    requireMemberOrAdmin(user);
    const group = accessUserGroupToRead(realm, params.user_group_id);
    const members = userGroupMemberIds(realm, group.row.id, { directOnly: params.direct_member_only });
    return Promise.resolve({ members });
  },
});

export const getIsUserGroupMember = defineEndpoint({
  method: "GET",
  path: "/user_groups/:user_group_id/members/:user_id",
  auth: "user",
  params: {
    user_group_id: pathInt(),
    user_id: pathInt(),
    direct_member_only: p.bool().default(false),
  },
  handler({ user, realm, params }) {
    requireMemberOrAdmin(user);
    const group = accessUserGroupToRead(realm, params.user_group_id);
    // Zulip's access_user_by_id(for_admin=False): bots are "No such user" here too.
    const target = accessUserById(realm, params.user_id);
    if (bool(target.is_bot)) throw badRequest("No such user");
    if (!bool(target.is_active)) throw badRequest("User is deactivated");
    const directOnly = params.direct_member_only;
    return Promise.resolve({
      is_user_group_member: isUserInGroup(realm, target.id, group.row.id, { directOnly }),
    });
  },
});

export const getUserGroupSubgroups = defineEndpoint({
  method: "GET",
  path: "/user_groups/:user_group_id/subgroups",
  auth: "user",
  params: { user_group_id: pathInt(), direct_subgroup_only: p.bool().default(false) },
  handler({ user, realm, params }) {
    requireMemberOrAdmin(user);
    const group = accessUserGroupToRead(realm, params.user_group_id);
    const subgroups = userGroupSubgroupIds(realm, group.row.id, { directOnly: params.direct_subgroup_only });
    return Promise.resolve({ subgroups });
  },
});
