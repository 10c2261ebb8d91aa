import type { RealmUserDefaultsRow, UserSettingName, UserSettingsColumns } from "../db/rows.js";
import { badRequest } from "../errors.js";
import { p, type Param } from "../params.js";
import { isLanguageCode } from "./languages.js";

/**
 * Every personal setting of PATCH /settings (Zulip's UserBaseSettings property_types,
 * plus timezone), in Zulip's register order: its kind, Zulip's default, which legacy
 * event carries it to clients without the user_settings_object capability, whether
 * administrators set it for new users (PATCH /realm/user_settings_defaults), and how
 * its request parameter is decoded, with Zulip's errors. Stored one column each
 * (db/rows.ts UserSettingsColumns).
 */

export type SettingValue = boolean | number | string | null;

/**
 * The legacy event (update_display_settings / update_global_notifications) and legacy
 * top-level register keys of a setting; none for settings newer than feature level 89.
 */
export type LegacyGroup = "display" | "notification";

export interface UserSettingSpec {
  readonly name: UserSettingName;
  readonly kind: "bool" | "nullable_bool" | "int" | "string";
  readonly default: SettingValue;
  readonly legacy: LegacyGroup | null;
  /** A realm default (its realm_user_settings_defaults column); only timezone is not. */
  readonly hasRealmDefault: boolean;
  /** PATCH /realm/user_settings_defaults may change it (Zulip leaves out a few personal ones). */
  readonly realmDefaultEditable: boolean;
  /** The PATCH /settings parameter. */
  readonly param: Param<SettingValue>;
  /** The realm defaults endpoint's parameter, where its error differs. */
  readonly defaultsParam: Param<SettingValue>;
}

export const EMOJISET_CHOICES: ReadonlyArray<{ readonly key: string; readonly text: string }> = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
  { key: "google-blob", text: "Google blobs" },
];

/** Zulip's notification sounds (static/audio/notification_sounds), sorted; "none" is also accepted. */
export const NOTIFICATION_SOUNDS: readonly string[] = [
  "ascend",
  "beep_boop",
  "bink",
  "bright",
  "brlip",
  "chime",
  "deep tom",
  "ding",
  "double tap",
  "down",
  "dry bongos",
  "dutdut",
  "fast ascend",
  "flute",
  "friendly",
  "kick roll",
  "loud tintong",
  "metallic snare",
  "pan",
  "shaker",
  "simple",
  "stairs",
  "subtle",
  "swish",
  "tintong",
  "up",
  "wood block",
  "zaping",
  "zing",
  "zulip",
];

/** One week: Zulip's limit for batching email notifications. */
const MAX_EMAIL_BATCHING_SECONDS = 7 * 24 * 60 * 60;

/**
 * An IANA time zone name, as Zulip's zoneinfo check accepts it: the names Node's ICU
 * knows (aliases such as US/Eastern included), spelled with the database's case.
 */
export function isKnownTimezone(name: string): boolean {
  // Offsets (+01:00) are not names, though newer ICU accepts them.
  if (!/^[A-Za-z]/.test(name)) return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  // ICU ignores case; resolving an alias gives another name, a mis-cased name itself.
  return resolved === name || resolved.toLowerCase() !== name.toLowerCase();
}

// ---- parameter decoders, with the wording of Zulip's validators ----

/** Zulip's check_int_in / check_string_in validators, as its typed_endpoint words a ValueError. */
const notInList = (name: string) =>
  badRequest(`Invalid ${name}: Value error, Not in the list of possible values`);

const intIn = (choices: readonly number[]) =>
  p.int({}, (value, name) => {
    if (!choices.includes(value)) throw notInList(name);
    return value;
  });

const stringIn = (choices: readonly string[]) =>
  p.custom((raw, name) => {
    if (!choices.includes(raw)) throw notInList(name);
    return raw;
  });

/** A Literal parameter's error (the realm defaults endpoint types some settings so). */
const literal = (choices: readonly string[]) =>
  p.custom((raw, name) => {
    if (!choices.includes(raw)) throw badRequest(`Invalid ${name}`);
    return raw;
  });

const languageParam = p.custom((raw) => {
  if (!isLanguageCode(raw)) throw badRequest("Invalid default_language");
  return raw;
});

const soundParam = p.custom((raw) => {
  if (raw !== "none" && !NOTIFICATION_SOUNDS.includes(raw)) {
    throw badRequest(`Invalid notification sound '${raw}'`);
  }
  return raw;
});

const batchingParam = p.int({}, (seconds) => {
  if (seconds <= 0 || seconds > MAX_EMAIL_BATCHING_SECONDS) {
    throw badRequest(`Invalid email batching period: ${seconds} seconds`);
  }
  return seconds;
});

const timezoneParam = p.custom((raw, name) => {
  if (!isKnownTimezone(raw)) throw badRequest(`Invalid ${name}: Value error, Not a recognized time zone`);
  return raw;
});

const RESOLVED_TOPIC_NOTICE_POLICIES = ["always", "except_followed", "never"];
const resolvedNoticeParam = p.custom((raw) => {
  if (!RESOLVED_TOPIC_NOTICE_POLICIES.includes(raw)) {
    throw badRequest("Invalid resolved_topic_notice_auto_read_policy");
  }
  return raw;
});

const HOME_VIEWS = ["recent_topics", "inbox", "all_messages"];
const IMAGE_ANIMATION = ["always", "on_hover", "never"];

// ---- the settings ----

type SpecOptions = {
  legacy?: LegacyGroup;
  /** Not changeable through the realm defaults endpoint. */
  personal?: boolean;
  /** No realm_user_settings_defaults column at all. */
  noRealmDefault?: boolean;
  defaultsParam?: Param<SettingValue>;
};

function spec(
  name: UserSettingName,
  kind: UserSettingSpec["kind"],
  value: SettingValue,
  param: Param<SettingValue>,
  options: SpecOptions = {},
): UserSettingSpec {
  return {
    name,
    kind,
    default: value,
    legacy: options.legacy ?? null,
    hasRealmDefault: !options.noRealmDefault,
    realmDefaultEditable: !options.personal,
    param,
    defaultsParam: options.defaultsParam ?? param,
  };
}

const bool = (name: UserSettingName, value: boolean, options?: SpecOptions) =>
  spec(name, "bool", value, p.bool(), options);
const int = (name: UserSettingName, value: number, choices: readonly number[], options?: SpecOptions) =>
  spec(name, "int", value, intIn(choices), options);
const display: SpecOptions = { legacy: "display" };
const notification: SpecOptions = { legacy: "notification" };

export const USER_SETTING_SPECS: readonly UserSettingSpec[] = [
  spec("twenty_four_hour_time", "nullable_bool", false, p.bool(), display),
  int("web_mark_read_on_scroll_policy", 1, [1, 2, 3]),
  int("web_channel_default_view", 1, [1, 2, 4]),
  bool("starred_message_counts", true, display),
  // OpenAPI documents it among register's legacy top-level display keys, so it is one here.
  bool("receives_typing_notifications", true, display),
  bool("web_suggest_update_timezone", true),
  bool("fluid_layout_width", false, display),
  bool("high_contrast_mode", false, display),
  spec("web_font_size_px", "int", 16, p.int()),
  spec("web_line_height_percent", "int", 140, p.int()),
  int("color_scheme", 1, [1, 2, 3], display),
  bool("translate_emoticons", false, display),
  bool("display_emoji_reaction_users", true),
  spec("default_language", "string", "en", languageParam, { ...display, personal: true }),
  spec("web_home_view", "string", "inbox", stringIn(HOME_VIEWS), {
    ...display,
    defaultsParam: literal(HOME_VIEWS),
  }),
  bool("web_escape_navigates_to_home_view", true),
  bool("left_side_userlist", false, display),
  spec("emojiset", "string", "google", stringIn(EMOJISET_CHOICES.map((e) => e.key)), display),
  int("demote_inactive_streams", 1, [1, 2, 3], display),
  int("user_list_style", 3, [1, 2, 3]),
  spec("web_animate_image_previews", "string", "on_hover", stringIn(IMAGE_ANIMATION), {
    defaultsParam: literal(IMAGE_ANIMATION),
  }),
  int("web_stream_unreads_count_display_policy", 2, [1, 2, 3]),
  bool("hide_ai_features", false),
  bool("web_left_sidebar_show_channel_folders", true),
  bool("web_left_sidebar_unreads_count_summary", true),
  bool("enter_sends", false, display),
  bool("enable_drafts_synchronization", true, display),
  bool("enable_stream_desktop_notifications", false, notification),
  bool("enable_stream_email_notifications", false, notification),
  bool("enable_stream_push_notifications", false, notification),
  bool("enable_stream_audible_notifications", false, notification),
  spec("notification_sound", "string", "zulip", soundParam, notification),
  bool("enable_desktop_notifications", true, notification),
  bool("enable_sounds", true, notification),
  bool("enable_followed_topic_desktop_notifications", true),
  bool("enable_followed_topic_email_notifications", true),
  bool("enable_followed_topic_push_notifications", true),
  bool("enable_followed_topic_audible_notifications", true),
  spec("email_notifications_batching_period_seconds", "int", 120, batchingParam, notification),
  bool("enable_offline_email_notifications", true, notification),
  bool("enable_offline_push_notifications", true, notification),
  bool("enable_online_push_notifications", true, notification),
  bool("enable_digest_emails", true, notification),
  bool("enable_marketing_emails", true, { ...notification, personal: true }),
  bool("enable_login_emails", true, { ...notification, personal: true }),
  bool("message_content_in_email_notifications", true, notification),
  bool("pm_content_in_desktop_notifications", true, notification),
  bool("wildcard_mentions_notify", true, notification),
  bool("enable_followed_topic_wildcard_mentions_notify", true),
  int("desktop_icon_count_display", 1, [1, 2, 3, 4], notification),
  int("realm_name_in_email_notifications_policy", 1, [1, 2, 3], notification),
  int("automatically_follow_topics_policy", 3, [1, 2, 3, 4]),
  int("automatically_unmute_topics_in_muted_streams_policy", 2, [1, 2, 3, 4]),
  bool("automatically_follow_topics_where_mentioned", true),
  spec("resolved_topic_notice_auto_read_policy", "string", "except_followed", resolvedNoticeParam),
  bool("presence_enabled", true, notification),
  bool("send_private_typing_notifications", true),
  bool("send_stream_typing_notifications", true),
  bool("send_read_receipts", true),
  bool("allow_private_data_export", false, { personal: true }),
  int("email_address_visibility", 1, [1, 2, 3, 4, 5]),
  bool("web_navigate_to_sent_message", true),
  // Not a realm default; Zulip applies it after the others.
  spec("timezone", "string", "", timezoneParam, { ...display, personal: true, noRealmDefault: true }),
];

const SPECS_BY_NAME = new Map<string, UserSettingSpec>(USER_SETTING_SPECS.map((s) => [s.name, s]));

export const userSettingSpec = (name: string): UserSettingSpec | undefined => SPECS_BY_NAME.get(name);

/** A stored value as the API shows it (SQLite gives booleans as 0/1). */
export function settingValue(spec: UserSettingSpec, stored: boolean | number | string | null): SettingValue {
  switch (spec.kind) {
    case "bool":
      return stored === true || stored === 1;
    case "nullable_bool":
      return stored === null ? null : stored === true || stored === 1;
    case "int":
      return Number(stored);
    case "string":
      return String(stored);
  }
}

const NOT_COPIED: ReadonlySet<string> = new Set([
  "default_language",
  "enable_login_emails",
  "email_address_visibility",
]);

/**
 * Zulip's copy_default_settings from the realm's defaults, for a new human: all but
 * default_language (the realm's language instead), enable_login_emails (always on) and
 * email_address_visibility (chosen at sign-up, else the default; the caller decides).
 */
export function settingsCopiedForNewUser(defaults: RealmUserDefaultsRow): Partial<UserSettingsColumns> {
  const copied: Partial<Record<UserSettingName, unknown>> = {};
  for (const spec of USER_SETTING_SPECS) {
    if (!spec.hasRealmDefault || NOT_COPIED.has(spec.name)) continue;
    copied[spec.name] = defaults[spec.name as keyof RealmUserDefaultsRow];
  }
  return copied as Partial<UserSettingsColumns>;
}
