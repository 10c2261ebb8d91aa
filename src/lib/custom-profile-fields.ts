import type { Knex } from "knex";
import { createRequire } from "node:module";
import { bool, type DbBool } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { validate, codePointLength } from "../params.js";
import type { RealmSnapshot } from "../world/realm.js";

// Only the URL check, not the whole validator library (memory at start-up).
const isURL = (
  createRequire(import.meta.url)("validator/lib/isURL.js") as { default: (s: string, o: object) => boolean }
).default;

/**
 * Custom profile fields: the field types, their per-type value rules, and the queries
 * that read fields and users' values. Messages are Zulip's (the value validators name
 * the field, e.g. "Phone is too long (limit: 50 characters)").
 */

export const FIELD_TYPE = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** register's custom_profile_field_types, in Zulip's order. */
export const FIELD_TYPE_NAMES: ReadonlyArray<readonly [keyword: string, id: number, name: string]> = [
  ["SHORT_TEXT", FIELD_TYPE.SHORT_TEXT, "Text (short)"],
  ["LONG_TEXT", FIELD_TYPE.LONG_TEXT, "Text (long)"],
  ["DATE", FIELD_TYPE.DATE, "Date"],
  ["URL", FIELD_TYPE.URL, "Link"],
  ["EXTERNAL_ACCOUNT", FIELD_TYPE.EXTERNAL_ACCOUNT, "External account"],
  ["PRONOUNS", FIELD_TYPE.PRONOUNS, "Pronouns"],
  ["SELECT", FIELD_TYPE.SELECT, "List of options"],
  ["USER", FIELD_TYPE.USER, "Users"],
];

export const isFieldType = (type: number) => FIELD_TYPE_NAMES.some(([, id]) => id === type);

export const FIELD_NAME_MAX_LENGTH = 40;
export const FIELD_HINT_MAX_LENGTH = 80;
export const MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS = 2;
const SHORT_TEXT_MAX_LENGTH = 50;
const LONG_TEXT_MAX_LENGTH = 500;

/** Types whose values are Markdown, stored with a rendered_value. */
export const isRenderable = (type: number) => type === FIELD_TYPE.SHORT_TEXT || type === FIELD_TYPE.LONG_TEXT;

/** Types that may be used to match users (e.g. for imports): short text, external account. */
export const canUseForUserMatching = (type: number) =>
  type === FIELD_TYPE.SHORT_TEXT || type === FIELD_TYPE.EXTERNAL_ACCOUNT;

/** External account types Zulip knows by name; their name and URL come from here. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Readonly<Record<string, { name: string; hint: string }>> = {
  twitter: { name: "Twitter username", hint: "" },
  github: { name: "GitHub username", hint: "" },
};

export interface CustomProfileFieldRow {
  id: number;
  realm_id: number;
  name: string;
  hint: string;
  field_type: number;
  /** JSON text ("" for types without data). */
  field_data: string;
  order: number;
  display_in_profile_summary: DbBool;
  required: DbBool;
  editable_by_user: DbBool;
  use_for_user_matching: DbBool;
}

export type FieldData = Record<string, unknown>;

export function parseFieldData(row: Pick<CustomProfileFieldRow, "field_data">): FieldData {
  if (!row.field_data) return {};
  const parsed = JSON.parse(row.field_data) as unknown;
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as FieldData) : {};
}

export function isDefaultExternalField(fieldType: number, data: FieldData): boolean {
  return (
    fieldType === FIELD_TYPE.EXTERNAL_ACCOUNT &&
    typeof data.subtype === "string" &&
    Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, data.subtype)
  );
}

/** The realm's fields in display order. */
export function fieldsOfRealm(knex: Knex, realmId: number): Promise<CustomProfileFieldRow[]> {
  return knex<CustomProfileFieldRow>("custom_profile_fields")
    .where({ realm_id: realmId })
    .orderBy([{ column: "order" }, { column: "id" }]);
}

export interface ProfileFieldValue {
  value: string;
  rendered_value?: string | null;
}

export type ProfileData = Record<string, ProfileFieldValue>;

/**
 * Users' custom field values keyed by user ID, each a map field ID -> {value,
 * rendered_value}, as User records show them (rendered_value for Markdown types only).
 */
export async function profileDataByUser(
  knex: Knex,
  realmId: number,
  userIds?: readonly number[],
): Promise<Map<number, ProfileData>> {
  const query = knex("custom_profile_field_values as v")
    .join("custom_profile_fields as f", "f.id", "v.field_id")
    .where("f.realm_id", realmId)
    .orderBy(["v.user_id", "v.field_id"])
    .select<
      Array<{
        user_id: number;
        field_id: number;
        value: string;
        rendered_value: string | null;
        field_type: number;
      }>
    >("v.user_id", "v.field_id", "v.value", "v.rendered_value", "f.field_type");
  if (userIds) query.whereIn("v.user_id", userIds);
  const byUser = new Map<number, ProfileData>();
  for (const row of await query) {
    let data = byUser.get(row.user_id);
    if (!data) byUser.set(row.user_id, (data = {}));
    data[String(row.field_id)] = isRenderable(row.field_type)
      ? { value: row.value, rendered_value: row.rendered_value }
      : { value: row.value };
  }
  return byUser;
}

// ---- field definitions (administrators) ----

function requiredString(value: unknown, name: string): string {
  const s = validate.str()(value, name);
  if (!s.trim()) throw badRequest(`${name} cannot be blank.`);
  return s;
}

/** Zulip's check_dict_only: required keys, optional keys, nothing else. */
function validateDictOnly(
  value: unknown,
  name: string,
  required: ReadonlyArray<readonly [string, (v: unknown, n: string) => unknown]>,
  optional: ReadonlyArray<readonly [string, (v: unknown, n: string) => unknown]> = [],
): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest(`${name} is not a dict`);
  }
  const dict = value as Record<string, unknown>;
  for (const [key, validateValue] of required) {
    if (!Object.hasOwn(dict, key)) throw badRequest(`${key} key is missing from ${name}`);
    validateValue(dict[key], `${name}["${key}"]`);
  }
  for (const [key, validateValue] of optional) {
    if (Object.hasOwn(dict, key)) validateValue(dict[key], `${name}["${key}"]`);
  }
  const known = new Set([...required, ...optional].map(([key]) => key));
  const extra = Object.keys(dict).filter((key) => !known.has(key));
  if (extra.length > 0) throw badRequest(`Unexpected arguments: ${extra.join(", ")}`);
  return dict;
}

/** A dropdown's choices: {key: {text, order}}, at least one, texts distinct. */
export function validateSelectFieldData(data: FieldData): void {
  if (Object.keys(data).length < 1) throw badRequest("Field must have at least one choice.");
  const texts = new Set<string>();
  for (const [key, choice] of Object.entries(data)) {
    if (!key.trim()) throw badRequest("'value' cannot be blank.");
    const valid = validateDictOnly(choice, "field_data", [
      ["text", requiredString],
      ["order", requiredString],
    ]);
    texts.add(valid.text as string);
  }
  if (texts.size !== Object.keys(data).length) throw badRequest("Field must not have duplicate choices.");
}

export function isHttpUrl(value: string): boolean {
  return (
    isURL(value, { protocols: ["http", "https"], require_protocol: true }) ||
    /^https?:\/\/localhost(:\d{1,5})?([/?#]\S*)?$/i.test(value)
  );
}

function validateUrlPattern(value: unknown, name: string): string {
  const pattern = validate.str()(value, name);
  if (pattern.split("%(username)s").length !== 2) {
    throw badRequest("URL pattern must contain '%(username)s'.");
  }
  if (!isHttpUrl(pattern.replace("%(username)s", "username"))) throw badRequest(`${name} is not a URL`);
  return pattern;
}

/** An external account: a known subtype (twitter, github) or custom with a URL pattern. */
export function validateExternalAccountFieldData(data: FieldData): void {
  validateDictOnly(data, "field_data", [["subtype", requiredString]], [["url_pattern", validateUrlPattern]]);
  const subtype = data.subtype as string;
  if (Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, subtype)) return;
  if (subtype !== "custom") throw badRequest("Invalid external account type");
  if (!Object.hasOwn(data, "url_pattern"))
    throw badRequest("Custom external account must define URL pattern");
}

/** Zulip's validate_custom_profile_field: field data, then label and hint, then the type. */
export function validateFieldDefinition(
  name: string,
  hint: string,
  fieldType: number,
  data: FieldData,
): void {
  if (fieldType === FIELD_TYPE.SELECT) validateSelectFieldData(data);
  else if (fieldType === FIELD_TYPE.EXTERNAL_ACCOUNT) validateExternalAccountFieldData(data);
  if (!isDefaultExternalField(fieldType, data)) {
    if (!name.trim()) throw badRequest("Label cannot be blank.");
    if (codePointLength(hint) > FIELD_HINT_MAX_LENGTH) {
      throw badRequest(`hint is too long (limit: ${FIELD_HINT_MAX_LENGTH} characters)`);
    }
    if (codePointLength(name) > FIELD_NAME_MAX_LENGTH) {
      throw badRequest(`name is too long (limit: ${FIELD_NAME_MAX_LENGTH} characters)`);
    }
  }
  if (!isFieldType(fieldType)) throw badRequest("Invalid field type.");
}

export function validateDisplayInProfileSummary(fieldType: number, display: boolean): void {
  if (display && fieldType === FIELD_TYPE.USER) {
    throw badRequest("Field type not supported for display in profile summary.");
  }
}

export function validateUseForUserMatching(fieldType: number, use: boolean): void {
  if (use && !canUseForUserMatching(fieldType)) {
    throw badRequest("Field type not supported for use for user matching.");
  }
}

/** At most two fields may show in the profile summary (`exceptId`: the field being edited). */
export function validateProfileSummaryLimit(
  fields: readonly CustomProfileFieldRow[],
  exceptId?: number,
): void {
  const shown = fields.filter((f) => f.id !== exceptId && bool(f.display_in_profile_summary)).length;
  if (shown >= MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS) {
    throw badRequest(
      `Only ${MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`,
    );
  }
}

// ---- values (users) ----

function cappedString(value: unknown, name: string, max: number): string {
  const s = validate.str()(value, name);
  if (codePointLength(s) > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
  return s;
}

/** Python's date.fromisoformat(v).isoformat() == v: exactly YYYY-MM-DD, a real date. */
export function isIsoDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1) return false;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Checks a user's value for a field and returns it as stored: the string itself, or
 * for the Users type the JSON text of the user IDs.
 */
export function validateFieldValue(
  snapshot: RealmSnapshot,
  field: CustomProfileFieldRow,
  value: unknown,
): string {
  const name = field.name;
  switch (field.field_type) {
    case FIELD_TYPE.SHORT_TEXT:
    case FIELD_TYPE.EXTERNAL_ACCOUNT:
    case FIELD_TYPE.PRONOUNS:
      return cappedString(value, name, SHORT_TEXT_MAX_LENGTH);
    case FIELD_TYPE.LONG_TEXT:
      return cappedString(value, name, LONG_TEXT_MAX_LENGTH);
    case FIELD_TYPE.DATE: {
      const s = validate.str()(value, name);
      if (!isIsoDate(s)) throw badRequest(`${name} is not a date`);
      return s;
    }
    case FIELD_TYPE.URL: {
      const s = validate.str()(value, name);
      if (!isHttpUrl(s)) throw badRequest(`${name} is not a URL`);
      return s;
    }
    case FIELD_TYPE.SELECT: {
      const s = validate.str()(value, name);
      if (!Object.hasOwn(parseFieldData(field), s)) {
        throw badRequest(`'${s}' is not a valid choice for '${name}'.`);
      }
      return s;
    }
    case FIELD_TYPE.USER: {
      const ids = validate.list(validate.int())(value, "User IDs");
      const unknown = ids.filter((id) => !snapshot.user(id));
      if (unknown.length > 0) throw badRequest(`Invalid user IDs: ${unknown.join(", ")}`);
      for (const id of ids) {
        const user = snapshot.user(id)!;
        if (!bool(user.is_active)) throw badRequest(`User with ID ${id} is deactivated`);
        if (bool(user.is_bot)) throw badRequest(`User with ID ${id} is a bot`);
      }
      return JSON.stringify(ids);
    }
    default:
      throw badRequest("Invalid field type.");
  }
}
