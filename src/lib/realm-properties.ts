import { bool, type RealmRow } from "../db/rows.js";
import { badRequest, badValue } from "../errors.js";
import { p, validate, type Param } from "../params.js";
import { isLanguageCode } from "../world/languages.js";
import {
  MAX_REALM_DESCRIPTION_LENGTH,
  MAX_REALM_NAME_LENGTH,
  MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH,
} from "./realm-limits.js";

/**
 * The organization's own settings (PATCH /realm) that are columns of its row, as Zulip's
 * Realm.property_types lists them: how each is sent, who may change it, what the row
 * holds and how a new value is written. Group-permission settings are the registry's
 * (permissions/setting-registry.ts); the announcement channels are actions/realm-settings.ts's.
 */

/** A value as the API shows it (and as realm `update` events carry it). */
export type RealmPropertyValue = string | number | boolean | null;

export interface RealmProperty {
  readonly name: string;
  /** The request parameter: its type only; `parse` gives the value its meaning. */
  readonly param: Param<unknown>;
  /** Zulip lets only organization owners change it. */
  readonly ownerOnly: boolean;
  /** The value, once the caller may change it (Zulip checks permissions first). */
  parse(raw: unknown, name: string): RealmPropertyValue;
  /** What the realm's row holds, as the API shows it. */
  current(realm: RealmRow): RealmPropertyValue;
  /** The columns a new value is written to. */
  columns(value: RealmPropertyValue): Record<string, unknown>;
  /** What clients are shown for a stored value (register's realm_*, events). */
  shown(value: RealmPropertyValue): RealmPropertyValue;
}

/** chatd sends no email, digests included: register shows digests off whatever is stored. */
export const SEND_DIGEST_EMAILS = false;

/** The column's width: Zulip's is unbounded text, chatd's a short string. */
const MAX_CODE_BLOCK_LANGUAGE_LENGTH = 40;

/** Zulip's Realm.GIPHY_RATING_OPTIONS ids. */
const GIPHY_RATING_IDS = [0, 1, 2, 3, 4, 5];
/** The video call providers register's realm_available_video_chat_providers offers: none. */
const VIDEO_CHAT_PROVIDER_IDS = [0];
/** Zulip's OrgTypeEnum. */
const ORG_TYPE_IDS = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000] as const;
/** Zulip's DigestWeekdayEnum (Monday = 0). */
const DIGEST_WEEKDAYS = [0, 1, 2, 3, 4, 5, 6] as const;
const TOPICS_POLICIES = ["allow_empty_topic", "disable_empty_topic"] as const;
const EDIT_HISTORY_POLICIES = ["all", "moves", "none"] as const;

const column = (realm: RealmRow, name: string) => realm[name as keyof RealmRow] as RealmPropertyValue;
const identity = (raw: unknown) => raw as RealmPropertyValue;

function property(
  name: string,
  param: Param<unknown>,
  options: Partial<Omit<RealmProperty, "name" | "param">> = {},
): RealmProperty {
  return {
    name,
    param: param.optional(),
    ownerOnly: false,
    parse: identity,
    current: (realm) => column(realm, name),
    columns: (value) => ({ [name]: value }),
    shown: identity,
    ...options,
  };
}

const boolean = (name: string, options: Partial<RealmProperty> = {}) =>
  property(name, p.bool(), { current: (realm) => bool(column(realm, name) as never), ...options });

/**
 * Zulip's Json[int | str]: the type is checked with the request, the meaning later. A
 * string may also come unquoted (as the python client sends strings); null is absent.
 */
const intOrString = (): Param<number | string | undefined> =>
  p.custom((raw, name) => {
    let value: unknown;
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      value = raw;
    }
    if (value === null) return undefined;
    return typeof value === "string" ? value : validate.int()(value, name);
  });

/**
 * Zulip's parse_message_time_limit_setting: seconds (more than none), or "unlimited"
 * (no limit: null).
 */
function parseTimeLimit(raw: unknown, name: string): number | null {
  if (raw === "unlimited") return null;
  if (typeof raw === "string" || (raw as number) <= 0) throw badValue(name, raw);
  return raw as number;
}

const timeLimit = (name: string) => property(name, intOrString(), { parse: parseTimeLimit });

/** An integer from a fixed set (Zulip's enums), "Invalid {name}" otherwise. */
const oneOfInts = (values: readonly number[]) =>
  p.int({}, (value, name) => validate.oneOf(values)(value, name));

export const REALM_PROPERTIES: readonly RealmProperty[] = [
  boolean("allow_message_editing"),
  boolean("avatar_changes_disabled"),
  property("default_code_block_language", p.str({ maxLength: MAX_CODE_BLOCK_LANGUAGE_LENGTH })),
  property("default_language", p.str(), {
    parse: (raw) => {
      if (!isLanguageCode(raw as string)) throw badRequest(`Invalid language '${raw as string}'`);
      return raw as string;
    },
  }),
  property("description", p.str({ maxLength: MAX_REALM_DESCRIPTION_LENGTH })),
  boolean("digest_emails_enabled", { shown: (value) => value === true && SEND_DIGEST_EMAILS }),
  property("digest_weekday", oneOfInts(DIGEST_WEEKDAYS)),
  boolean("email_changes_disabled"),
  boolean("emails_restricted_to_domains", { ownerOnly: true }),
  boolean("enable_guest_user_dm_warning"),
  boolean("enable_guest_user_indicator"),
  boolean("enable_read_receipts"),
  boolean("enable_spectator_access"),
  property("giphy_rating", p.int(), {
    parse: (raw) => {
      if (!GIPHY_RATING_IDS.includes(raw as number))
        throw badRequest(`Invalid giphy_rating ${raw as number}`);
      return raw as number;
    },
  }),
  boolean("inline_image_preview"),
  boolean("inline_url_embed_preview"),
  boolean("message_content_allowed_in_email_notifications"),
  boolean("invite_required", { ownerOnly: true }),
  timeLimit("message_content_delete_limit_seconds"),
  timeLimit("message_content_edit_limit_seconds"),
  // allow_edit_history is the deprecated boolean form of the policy: kept in step.
  property("message_edit_history_visibility_policy", p.oneOf(EDIT_HISTORY_POLICIES), {
    columns: (value) => ({
      message_edit_history_visibility_policy: value,
      allow_edit_history: value !== "none",
    }),
  }),
  // Zulip's parse_message_retention_days: days, or "unlimited" (-1; the column holds null).
  property("message_retention_days", intOrString(), {
    ownerOnly: true,
    parse: (raw, name) => {
      if (raw === "unlimited") return -1;
      if (typeof raw === "string" || (raw as number) <= 0) throw badValue(name, raw);
      return raw as number;
    },
    current: (realm) => realm.message_retention_days ?? -1,
    columns: (value) => ({ message_retention_days: value === -1 ? null : value }),
  }),
  timeLimit("move_messages_between_streams_limit_seconds"),
  timeLimit("move_messages_within_stream_limit_seconds"),
  property("name", p.str({ maxLength: MAX_REALM_NAME_LENGTH })),
  boolean("name_changes_disabled"),
  property("org_type", oneOfInts(ORG_TYPE_IDS)),
  boolean("require_unique_names"),
  boolean("send_welcome_emails"),
  // mandatory_topics is the deprecated boolean form of the policy: kept in step.
  property("topics_policy", p.oneOf(TOPICS_POLICIES), {
    columns: (value) => ({ topics_policy: value, mandatory_topics: value === "disable_empty_topic" }),
  }),
  property("video_chat_provider", p.int(), {
    parse: (raw) => {
      if (!VIDEO_CHAT_PROVIDER_IDS.includes(raw as number)) {
        throw badRequest(`Invalid video_chat_provider ${raw as number}`);
      }
      return raw as number;
    },
  }),
  property("waiting_period_threshold", p.int({ min: 0 }), { ownerOnly: true }),
  property("welcome_message_custom_text", p.str({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH })),
];
