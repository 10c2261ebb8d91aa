import {
  checkCreateCustomProfileField,
  checkDeleteCustomProfileField,
  checkReorderCustomProfileFields,
  checkUpdateCustomProfileField,
} from "../actions/custom-profile-fields.js";
import { defineEndpoint } from "../http/endpoint.js";
import { validate, p, pathInt } from "../params.js";
import { fieldsOfRealm } from "../lib/custom-profile-fields.js";
import { presentField } from "../presenters/custom-profile-fields.js";

const fieldDataParam = p.json(validate.record(validate.any()));

export const getCustomProfileFields = defineEndpoint({
  method: "GET",
  path: "/realm/profile_fields",
  auth: "user",
  params: {},
  async handler({ app, realm }) {
    return { custom_fields: (await fieldsOfRealm(app.knex, realm.id)).map(presentField) };
  },
});

export const createCustomProfileField = defineEndpoint({
  method: "POST",
  path: "/realm/profile_fields",
  auth: "admin",
  params: {
    field_type: p.int(),
    name: p.str({ trim: true }).default(""),
    hint: p.str().default(""),
    field_data: fieldDataParam.default({}),
    display_in_profile_summary: p.bool().default(false),
    required: p.bool().default(false),
    editable_by_user: p.bool().default(true),
    use_for_user_matching: p.bool().default(false),
  },
  async handler({ app, realm, params }) {
    const id = await checkCreateCustomProfileField(app, realm.id, {
      name: params.name,
      hint: params.hint,
      fieldType: params.field_type,
      fieldData: params.field_data,
      displayInProfileSummary: params.display_in_profile_summary,
      required: params.required,
      editableByUser: params.editable_by_user,
      useForUserMatching: params.use_for_user_matching,
    });
    return { id };
  },
});

export const updateCustomProfileField = defineEndpoint({
  method: "PATCH",
  path: "/realm/profile_fields/:field_id",
  auth: "admin",
  params: {
    field_id: pathInt(),
    name: p.str({ trim: true }).optional(),
    hint: p.str().optional(),
    field_data: fieldDataParam.optional(),
    display_in_profile_summary: p.bool().optional(),
    required: p.bool().optional(),
    editable_by_user: p.bool().optional(),
    use_for_user_matching: p.bool().optional(),
  },
  async handler({ app, realm, params }) {
    await checkUpdateCustomProfileField(app, realm.id, params.field_id, {
      name: params.name,
      hint: params.hint,
      fieldData: params.field_data,
      displayInProfileSummary: params.display_in_profile_summary,
      required: params.required,
      editableByUser: params.editable_by_user,
      useForUserMatching: params.use_for_user_matching,
    });
    return {};
  },
});

export const deleteCustomProfileField = defineEndpoint({
  method: "DELETE",
  path: "/realm/profile_fields/:field_id",
  auth: "admin",
  params: { field_id: pathInt() },
  async handler({ app, realm, params }) {
    await checkDeleteCustomProfileField(app, realm.id, params.field_id);
    return {};
  },
});

/** PATCH /realm/profile_fields with `order`: every field's ID, in the new order. */
export const reorderCustomProfileFields = defineEndpoint({
  method: "PATCH",
  path: "/realm/profile_fields",
  auth: "admin",
  params: { order: p.listOf(validate.int()) },
  async handler({ app, realm, params }) {
    await checkReorderCustomProfileFields(app, realm.id, params.order);
    return {};
  },
});
