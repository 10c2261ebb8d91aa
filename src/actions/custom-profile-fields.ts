import type { App } from "../app.js";
import { bool, type UserRow } from "../db/rows.js";
import { insertReturningId } from "../db/insert.js";
import type { Tx } from "../db/tx.js";
import { badRequest, botsNotAllowed } from "../errors.js";
import {
  DEFAULT_EXTERNAL_ACCOUNTS,
  FIELD_TYPE,
  validateDisplayInProfileSummary,
  validateFieldDefinition,
  validateFieldValue,
  validateProfileSummaryLimit,
  validateUseForUserMatching,
  fieldsOfRealm,
  isDefaultExternalField,
  isRenderable,
  parseFieldData,
  type CustomProfileFieldRow,
  type FieldData,
} from "../lib/custom-profile-fields.js";
import type { RealmSnapshot } from "../world/realm.js";
import { activeUserIds } from "../lib/recipients.js";
import { isAdminRole } from "../world/roles.js";
import { presentField } from "../presenters/custom-profile-fields.js";
import { customProfileFieldsEvent, realmUserEvents } from "../presenters/events/users.js";
import { renderMarkdown } from "../render/markdown.js";

const fieldNotFound = (id: number) => badRequest(`Field id ${id} not found.`);
const duplicateLabel = () => badRequest("A field with that label already exists.");
const notEditable = () =>
  badRequest("You are not allowed to change this field. Contact an administrator to update it.");

/** Field data as stored: JSON text for dropdowns and external accounts, else "". */
function storedFieldData(fieldType: number, data: FieldData): string {
  if (fieldType === FIELD_TYPE.SELECT || fieldType === FIELD_TYPE.EXTERNAL_ACCOUNT)
    return JSON.stringify(data);
  return "";
}

/** Tells every active user the realm's whole, new list of fields. */
async function notifyFields(app: App, tx: Tx, realmId: number): Promise<void> {
  const fields = await fieldsOfRealm(tx.knex, realmId);
  const snapshot = await app.realms.get(tx.knex, realmId);
  tx.sendEventOnCommit(realmId, customProfileFieldsEvent(fields.map(presentField)), activeUserIds(snapshot));
}

export interface CreateFieldInput {
  name: string;
  hint: string;
  fieldType: number;
  fieldData: FieldData;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
  useForUserMatching: boolean;
}

/** POST /realm/profile_fields: validates in Zulip's order, then creates the field. */
export async function checkCreateCustomProfileField(
  app: App,
  realmId: number,
  input: CreateFieldInput,
): Promise<number> {
  return app.db.transaction(async (tx) => {
    const fields = await fieldsOfRealm(tx.knex, realmId);
    if (input.displayInProfileSummary) validateProfileSummaryLimit(fields);
    validateFieldDefinition(input.name, input.hint, input.fieldType, input.fieldData);
    validateDisplayInProfileSummary(input.fieldType, input.displayInProfileSummary);
    validateUseForUserMatching(input.fieldType, input.useForUserMatching);
    let { name, hint } = input;
    let fieldData = storedFieldData(input.fieldType, input.fieldData);
    if (isDefaultExternalField(input.fieldType, input.fieldData)) {
      // Twitter, GitHub: the label and hint are Zulip's, the data only the subtype.
      const subtype = input.fieldData.subtype as string;
      ({ name, hint } = DEFAULT_EXTERNAL_ACCOUNTS[subtype]!);
      fieldData = JSON.stringify({ subtype });
    }
    if (fields.some((f) => f.name === name)) throw duplicateLabel();
    return doCreateCustomProfileField(app, tx, realmId, { ...input, name, hint, fieldData });
  });
}

export async function doCreateCustomProfileField(
  app: App,
  tx: Tx,
  realmId: number,
  input: Omit<CreateFieldInput, "fieldData"> & { fieldData: string },
): Promise<number> {
  const id = await insertReturningId(tx.knex, "custom_profile_fields", {
    realm_id: realmId,
    name: input.name,
    hint: input.hint,
    field_type: input.fieldType,
    field_data: input.fieldData,
    display_in_profile_summary: input.displayInProfileSummary,
    required: input.required,
    editable_by_user: input.editableByUser,
    use_for_user_matching: input.useForUserMatching,
  });
  // New fields go last: Zulip orders by `order`, which starts as the ID.
  await tx.knex("custom_profile_fields").where({ id }).update({ order: id });
  await notifyFields(app, tx, realmId);
  return id;
}

export interface UpdateFieldInput {
  name?: string;
  hint?: string;
  fieldData?: FieldData;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
  useForUserMatching?: boolean;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** PATCH /realm/profile_fields/{id}: only the given properties change. */
export async function checkUpdateCustomProfileField(
  app: App,
  realmId: number,
  fieldId: number,
  input: UpdateFieldInput,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const fields = await fieldsOfRealm(tx.knex, realmId);
    const field = fields.find((f) => f.id === fieldId);
    if (!field) throw fieldNotFound(fieldId);
    if (input.displayInProfileSummary) validateProfileSummaryLimit(fields, field.id);
    const storedData = parseFieldData(field);
    if (
      isDefaultExternalField(field.field_type, storedData) &&
      ((input.name !== undefined && input.name !== field.name) ||
        (input.hint !== undefined && input.hint !== field.hint) ||
        (input.fieldData !== undefined && !sameJson(input.fieldData, storedData)))
    ) {
      throw badRequest("Default custom field cannot be updated.");
    }
    const name = input.name ?? field.name;
    const hint = input.hint ?? field.hint;
    const data = input.fieldData ?? storedData;
    const display = input.displayInProfileSummary ?? bool(field.display_in_profile_summary);
    const matching = input.useForUserMatching ?? bool(field.use_for_user_matching);
    validateFieldDefinition(name, hint, field.field_type, data);
    validateDisplayInProfileSummary(field.field_type, display);
    validateUseForUserMatching(field.field_type, matching);
    if (fields.some((f) => f.id !== field.id && f.name === name)) throw duplicateLabel();
    await doUpdateCustomProfileField(app, tx, field, {
      name,
      hint,
      field_data: storedFieldData(field.field_type, data),
      display_in_profile_summary: display,
      required: input.required ?? bool(field.required),
      editable_by_user: input.editableByUser ?? bool(field.editable_by_user),
      use_for_user_matching: matching,
    });
  });
}

export async function doUpdateCustomProfileField(
  app: App,
  tx: Tx,
  field: CustomProfileFieldRow,
  changes: Pick<
    CustomProfileFieldRow,
    | "name"
    | "hint"
    | "field_data"
    | "display_in_profile_summary"
    | "required"
    | "editable_by_user"
    | "use_for_user_matching"
  >,
): Promise<void> {
  if (field.field_type === FIELD_TYPE.SELECT) {
    // Users whose choice was removed lose their value.
    const kept = new Set(Object.keys(parseFieldData({ field_data: changes.field_data })));
    const removed = Object.keys(parseFieldData(field)).filter((key) => !kept.has(key));
    if (removed.length > 0) {
      const affected = await tx
        .knex("custom_profile_field_values")
        .where({ field_id: field.id })
        .whereIn("value", removed)
        .pluck<number[]>("user_id");
      await tx
        .knex("custom_profile_field_values")
        .where({ field_id: field.id })
        .whereIn("value", removed)
        .delete();
      const snapshot = await app.realms.get(tx.knex, field.realm_id);
      for (const userId of affected) {
        sendProfileFieldUpdate(tx, snapshot, userId, { id: field.id, value: null });
      }
    }
  }
  await tx.knex("custom_profile_fields").where({ id: field.id }).update(changes);
  await notifyFields(app, tx, field.realm_id);
}

/** DELETE /realm/profile_fields/{id}; users' values go with the field. */
export async function checkDeleteCustomProfileField(
  app: App,
  realmId: number,
  fieldId: number,
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const field = await tx
      .knex<CustomProfileFieldRow>("custom_profile_fields")
      .where({ id: fieldId, realm_id: realmId })
      .first();
    if (!field) throw fieldNotFound(fieldId);
    await tx.knex("custom_profile_field_values").where({ field_id: field.id }).delete();
    await tx.knex("custom_profile_fields").where({ id: field.id }).delete();
    await notifyFields(app, tx, realmId);
  });
}

/** PATCH /realm/profile_fields: `order` lists every field's ID, in the new order. */
export async function checkReorderCustomProfileFields(
  app: App,
  realmId: number,
  order: readonly number[],
): Promise<void> {
  await app.db.transaction(async (tx) => {
    const position = new Map(order.map((id, index) => [id, index]));
    const fields = await fieldsOfRealm(tx.knex, realmId);
    if (fields.some((f) => !position.has(f.id))) throw badRequest("Invalid order mapping.");
    for (const field of fields) {
      await tx
        .knex("custom_profile_fields")
        .where({ id: field.id })
        .update({ order: position.get(field.id)! });
    }
    await notifyFields(app, tx, realmId);
  });
}

// ---- users' values ----

export interface ProfileDataEntry {
  id: number;
  value: unknown;
}

/** A validated change to one user's values. */
export interface ProfileDataChange {
  set: Array<{ field: CustomProfileFieldRow; value: string }>;
  remove: CustomProfileFieldRow[];
}

/**
 * Zulip's validate_user_custom_profile_data. With `removeEmpty` (the administrators'
 * PATCH /users/{id}), a null or empty value removes the user's value instead.
 */
export async function validateProfileData(
  tx: Tx,
  snapshot: RealmSnapshot,
  actorIsAdmin: boolean,
  entries: readonly ProfileDataEntry[],
  options: { removeEmpty: boolean },
): Promise<ProfileDataChange> {
  const fields = new Map((await fieldsOfRealm(tx.knex, snapshot.realm.id)).map((f) => [f.id, f]));
  const editable = (id: number) => {
    const field = fields.get(id);
    if (!field) throw fieldNotFound(id);
    if (!actorIsAdmin && !bool(field.editable_by_user)) throw notEditable();
    return field;
  };
  const isEmpty = (value: unknown) =>
    value === null ||
    value === "" ||
    value === false ||
    value === 0 ||
    (Array.isArray(value) && !value.length);
  const change: ProfileDataChange = { set: [], remove: [] };
  const toSet: ProfileDataEntry[] = [];
  for (const entry of entries) {
    if (options.removeEmpty && isEmpty(entry.value)) change.remove.push(editable(entry.id));
    else toSet.push(entry);
  }
  for (const entry of toSet) {
    const field = editable(entry.id);
    change.set.push({ field, value: validateFieldValue(snapshot, field, entry.value) });
  }
  return change;
}

/** The realm_user update telling everyone a user's value of one field. */
function sendProfileFieldUpdate(
  tx: Tx,
  snapshot: RealmSnapshot,
  userId: number,
  field: { id: number; value: string | null; rendered_value?: string | null },
): void {
  const customField = {
    id: field.id,
    value: field.value,
    ...(field.rendered_value ? { rendered_value: field.rendered_value } : {}),
  };
  tx.sendEventOnCommit(
    snapshot.realm.id,
    realmUserEvents.update({ user_id: userId, custom_profile_field: customField }),
    activeUserIds(snapshot),
  );
}

/** Writes a validated change; unchanged values produce no event. */
export async function doUpdateProfileData(
  app: App,
  tx: Tx,
  target: UserRow,
  change: ProfileDataChange,
): Promise<void> {
  const snapshot = await app.realms.get(tx.knex, target.realm_id);
  for (const field of change.remove) {
    const removed = await tx
      .knex("custom_profile_field_values")
      .where({ user_id: target.id, field_id: field.id })
      .delete();
    if (removed > 0) sendProfileFieldUpdate(tx, snapshot, target.id, { id: field.id, value: null });
  }
  for (const { field, value } of change.set) {
    const existing = await tx
      .knex<{ user_id: number; field_id: number; value: string }>("custom_profile_field_values")
      .where({ user_id: target.id, field_id: field.id })
      .first("value");
    if (existing?.value === value) continue;
    const rendered = isRenderable(field.field_type) ? renderMarkdown(value) : null;
    if (existing) {
      await tx
        .knex("custom_profile_field_values")
        .where({ user_id: target.id, field_id: field.id })
        .update({ value, rendered_value: rendered });
    } else {
      await tx.knex("custom_profile_field_values").insert({
        user_id: target.id,
        field_id: field.id,
        value,
        rendered_value: rendered,
      });
    }
    sendProfileFieldUpdate(tx, snapshot, target.id, { id: field.id, value, rendered_value: rendered });
  }
}

/** PATCH /users/me/profile_data: a user's own values (editable_by_user applies). */
export async function checkUpdateOwnProfileData(
  app: App,
  user: UserRow,
  entries: readonly ProfileDataEntry[],
): Promise<void> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  await app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, user.realm_id);
    const change = await validateProfileData(tx, snapshot, isAdminRole(user.role), entries, {
      removeEmpty: false,
    });
    await doUpdateProfileData(app, tx, user, change);
  });
}

/** DELETE /users/me/profile_data: removes the user's values of the given fields. */
export async function checkRemoveOwnProfileData(
  app: App,
  user: UserRow,
  fieldIds: readonly number[],
): Promise<void> {
  if (bool(user.is_bot)) throw botsNotAllowed();
  await app.db.transaction(async (tx) => {
    const snapshot = await app.realms.get(tx.knex, user.realm_id);
    const change = await validateProfileData(
      tx,
      snapshot,
      isAdminRole(user.role),
      fieldIds.map((id) => ({ id, value: null })),
      { removeEmpty: true },
    );
    await doUpdateProfileData(app, tx, user, change);
  });
}
