import { bool } from "../db/rows.js";
import { FIELD_TYPE_NAMES, type CustomProfileFieldRow } from "../lib/custom-profile-fields.js";

/** A custom profile field as Zulip's as_dict shows it (field_data is JSON text). */
export function presentField(row: CustomProfileFieldRow): Record<string, unknown> {
  const field: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    type: row.field_type,
    hint: row.hint,
    field_data: row.field_data,
    order: row.order,
    required: bool(row.required),
    editable_by_user: bool(row.editable_by_user),
  };
  if (bool(row.display_in_profile_summary)) field.display_in_profile_summary = true;
  if (bool(row.use_for_user_matching)) field.use_for_user_matching = true;
  return field;
}

export function presentFieldTypes(): Record<string, { id: number; name: string }> {
  return Object.fromEntries(FIELD_TYPE_NAMES.map(([keyword, id, name]) => [keyword, { id, name }]));
}
