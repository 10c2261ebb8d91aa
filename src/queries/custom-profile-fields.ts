import { fieldsOfRealm } from "../lib/custom-profile-fields.js";
import { presentField, presentFieldTypes } from "../presenters/custom-profile-fields.js";
import type { StateContext } from "./state-context.js";

/** The `custom_profile_fields` fetch type of /register. */
export async function fetchCustomProfileFieldsState(ctx: StateContext): Promise<Record<string, unknown>> {
  const fields = await fieldsOfRealm(ctx.knex, ctx.realm.id);
  return {
    custom_profile_fields: fields.map(presentField),
    custom_profile_field_types: presentFieldTypes(),
  };
}
