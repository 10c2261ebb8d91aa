import {
  checkRemoveOwnProfileData,
  checkUpdateOwnProfileData,
  type ProfileDataEntry,
} from "../actions/custom-profile-fields.js";
import {
  checkDeactivateOwnUser,
  checkDeactivateUser,
  checkReactivateUser,
} from "../actions/user-activation.js";
import { checkCreateUser } from "../actions/user-create.js";
import { checkUpdateUser } from "../actions/user-update.js";
import { bool } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, field, p, pathInt, type Validator } from "../params.js";
import { accessUserById, accessUserByIdOrEmail } from "../lib/access-users.js";
import { profileDataByUser } from "../lib/custom-profile-fields.js";
import { isRole, type Role } from "../world/roles.js";
import { presentUser } from "../presenters/users.js";

/** A role value (JSON): 100, 200, 300, 400 or 600. */
export const roleParam = p.json((value, name): Role => {
  const role = validate.int()(value, name);
  if (!isRole(role)) throw badRequest(`Invalid ${name}`);
  return role;
});

/** {id, value} items; values are checked per field type by the action. */
const profileDataItem: Validator<ProfileDataEntry> = validate.dict({
  id: field.required(validate.int()),
  value: field.required(validate.any()),
});

export const getOwnUser = defineEndpoint({
  method: "GET",
  path: "/users/me",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    const profileData = bool(user.is_bot)
      ? undefined
      : await app.userState.profileData(app.knex, user.realm_id, user.id);
    const me = presentUser(user, user, { clientGravatar: false, profileData });
    // Added in place: a spread copy held across the await was promoted to the old
    // generation (measured: about 0.5 KB a request that only a full collection reclaimed).
    me.max_message_id = await app.userState.maxMessageId(app.knex, user.id);
    return me;
  },
});

export const getUsers = defineEndpoint({
  method: "GET",
  path: "/users",
  auth: "user",
  params: {
    client_gravatar: p.bool().default(true),
    include_custom_profile_fields: p.bool().default(false),
    user_ids: p.listOf(validate.int()).optional(),
  },
  async handler({ app, user, realm, params }) {
    const wanted = params.user_ids ? new Set(params.user_ids) : null;
    const profiles = params.include_custom_profile_fields
      ? await profileDataByUser(app.knex, realm.id)
      : null;
    const members = [];
    for (const target of realm.users) {
      if (wanted && !wanted.has(target.id)) continue;
      const profileData = profiles ? (profiles.get(target.id) ?? {}) : undefined;
      members.push(presentUser(user, target, { clientGravatar: params.client_gravatar, profileData }));
    }
    return { members };
  },
});

/** POST /users: administrators holding can_create_users. */
export const createUser = defineEndpoint({
  method: "POST",
  path: "/users",
  auth: "admin",
  params: {
    email: p.str(),
    password: p.str(),
    full_name: p.str(),
  },
  async handler({ app, user, realm, params }) {
    const created = await checkCreateUser(app, realm.id, user, {
      email: params.email,
      fullName: params.full_name,
      password: params.password,
    });
    return { user_id: created.id };
  },
});

/** GET /users/{user_id} and GET /users/{email} share one route, as in Zulip. */
export const getUser = defineEndpoint({
  method: "GET",
  path: "/users/:user_id_or_email",
  auth: "user",
  params: {
    user_id_or_email: p.path(p.str()),
    client_gravatar: p.bool().default(true),
    include_custom_profile_fields: p.bool().default(false),
  },
  async handler({ app, user, realm, params }) {
    const target = accessUserByIdOrEmail(app.config, realm, user, params.user_id_or_email);
    const profileData = params.include_custom_profile_fields
      ? ((await profileDataByUser(app.knex, realm.id, [target.id])).get(target.id) ?? {})
      : undefined;
    return { user: presentUser(user, target, { clientGravatar: params.client_gravatar, profileData }) };
  },
});

/** PATCH /users/{user_id} and PATCH /users/{email} (administrators). */
export const updateUser = defineEndpoint({
  method: "PATCH",
  path: "/users/:user_id_or_email",
  auth: "admin",
  params: {
    user_id_or_email: p.path(p.str()),
    full_name: p.str().optional(),
    role: roleParam.optional(),
    profile_data: p.listOf(profileDataItem).optional(),
    new_email: p.str().optional(),
  },
  async handler({ app, user, realm, params }) {
    const target = accessUserByIdOrEmail(app.config, realm, user, params.user_id_or_email);
    await checkUpdateUser(app, realm.id, user, target.id, {
      fullName: params.full_name,
      role: params.role,
      profileData: params.profile_data,
      newEmail: params.new_email,
    });
    return {};
  },
});

/** DELETE /users/{user_id}: deactivates the user and the bots they own. */
export const deactivateUser = defineEndpoint({
  method: "DELETE",
  path: "/users/:user_id",
  auth: "admin",
  params: {
    user_id: pathInt(),
    // Zulip emails the user when this is given; chatd sends no email.
    deactivation_notification_comment: p.str({ maxLength: 2000 }).optional(),
  },
  async handler({ app, user, realm, params }) {
    await checkDeactivateUser(app, realm.id, user, accessUserById(realm, params.user_id).id);
    return {};
  },
});

/** DELETE /users/me: the caller deactivates their own account. */
export const deactivateOwnUser = defineEndpoint({
  method: "DELETE",
  path: "/users/me",
  auth: "user",
  params: {},
  async handler({ app, user }) {
    await checkDeactivateOwnUser(app, user);
    return {};
  },
});

/** POST /users/{user_id}/reactivate: administrators, and bots' owners for their bots. */
export const reactivateUser = defineEndpoint({
  method: "POST",
  path: "/users/:user_id/reactivate",
  auth: "user",
  params: { user_id: pathInt() },
  async handler({ app, user, realm, params }) {
    await checkReactivateUser(app, realm.id, user, accessUserById(realm, params.user_id).id);
    return {};
  },
});

/** PATCH /users/me/profile_data: the caller's own custom profile field values. */
export const updateOwnProfileData = defineEndpoint({
  method: "PATCH",
  path: "/users/me/profile_data",
  auth: "user",
  params: { data: p.listOf(profileDataItem) },
  async handler({ app, user, params }) {
    await checkUpdateOwnProfileData(app, user, params.data);
    return {};
  },
});

export const removeOwnProfileData = defineEndpoint({
  method: "DELETE",
  path: "/users/me/profile_data",
  auth: "user",
  params: { data: p.listOf(validate.int()) },
  async handler({ app, user, params }) {
    await checkRemoveOwnProfileData(app, user, params.data);
    return {};
  },
});
