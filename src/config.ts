import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join, resolve } from "node:path";

/**
 * Settings take the defaults declared in SETTINGS, then <data_dir>/settings.json, then
 * CHATD_* environment variables, then command-line flags (each overriding the last).
 * They are validated once and frozen.
 */

/** How one setting is read, checked and documented. */
interface SettingSpec {
  /** A url is an absolute http(s) URL, or empty where empty means a default. */
  kind: "string" | "url" | "int" | "enum" | "bool";
  /** The value when no layer sets it. */
  default: string | number | boolean;
  description: string;
  choices?: readonly string[];
  min?: number;
  max?: number;
  /** Strings: throws a message when the value is malformed. */
  parse?: (value: string) => unknown;
  /** Comma-separated: a settings file may also give a JSON array of strings. */
  list?: boolean;
}

interface Documented<T> {
  default: T;
  description: string;
}

/** One constructor per kind, so that each declaration fixes its value's type. */
const setting = {
  string: (spec: Documented<string> & Pick<SettingSpec, "parse" | "list">) => ({
    kind: "string" as const,
    ...spec,
  }),
  url: (spec: Documented<string>) => ({ kind: "url" as const, ...spec }),
  int: (spec: Documented<number> & { min: number; max: number }) => ({ kind: "int" as const, ...spec }),
  enum: <const C extends readonly string[]>(spec: Documented<NoInfer<C[number]>> & { choices: C }) => ({
    kind: "enum" as const,
    ...spec,
  }),
  bool: (spec: Documented<boolean>) => ({ kind: "bool" as const, ...spec }),
};

/** The type of a declared setting's value: an enum's is the union of its choices. */
type ValueOf<S> = S extends { kind: "int" }
  ? number
  : S extends { kind: "bool" }
    ? boolean
    : S extends { choices: readonly (infer C)[] }
      ? C
      : string;

/**
 * Every setting, declared once: its kind, bounds, default and meaning. Config's type and
 * the defaults derive from it; the settings table in docs/configuration.md must list exactly
 * these settings with their environment variables and defaults, and every setting must be read somewhere (test/unit/settings.test.ts checks both).
 */
export const SETTINGS = {
  host: setting.string({ default: "127.0.0.1", description: "Interface the HTTP server listens on." }),
  port: setting.int({ default: 9991, min: 0, max: 65535, description: "TCP port of the HTTP server." }),
  external_url: setting.url({
    default: "",
    description:
      "Public URL of the server (realm_url). Its host name is used in dummy emails user{id}@{host}. Empty: http://host:port.",
  }),
  log_level: setting.enum({
    default: "info",
    choices: ["debug", "info", "warn", "error", "silent"],
    description: "Least severe log level written (request lines are info).",
  }),
  db_driver: setting.enum({
    default: "sqlite3",
    choices: ["sqlite3", "better-sqlite3"],
    description: "Knex SQLite driver.",
  }),
  database_url: setting.string({
    default: "",
    parse: parseDatabaseUrl,
    description:
      "PostgreSQL database as postgres://user:password@host:port/database; empty: the SQLite file in the data directory.",
  }),
  db_read_connections: setting.int({
    default: 4,
    min: 1,
    max: 64,
    description: "Database connections for reads, which run beside the one write connection.",
  }),
  sqlite_synchronous: setting.enum({
    default: "full",
    choices: ["full", "normal"],
    description:
      "full: an acknowledged write survives power loss. normal: faster, may lose the last writes on power loss (never corrupts).",
  }),
  db_lock_timeout_ms: setting.int({
    default: 5000,
    min: 0,
    max: 600000,
    description:
      "How long a query waits for a lock held by another process (SQLite's busy timeout, PostgreSQL's lock_timeout).",
  }),
  heartbeat_interval_secs: setting.int({
    default: 60,
    min: 1,
    max: 3600,
    description: "A long-poll with no events returns a heartbeat after this long.",
  }),
  idle_queue_timeout_secs: setting.int({
    default: 600,
    min: 1,
    max: 7 * 24 * 3600,
    description: "An event queue not polled for this long is garbage-collected.",
  }),
  queue_gc_interval_secs: setting.int({
    default: 60,
    min: 1,
    max: 3600,
    description: "How often idle event queues are swept.",
  }),
  external_change_poll_ms: setting.int({
    default: 1000,
    min: 50,
    max: 60000,
    description:
      "How often the server checks for writes by admin commands (to refresh caches and publish their events).",
  }),
  worker_event_poll_ms: setting.int({
    default: 10,
    min: 1,
    max: 1000,
    description:
      "With several workers (serve --workers N): how often each worker checks the event log for commits of the others (added delivery latency).",
  }),
  delete_topic_batch_size: setting.int({
    default: 100,
    min: 1,
    max: 10000,
    description: "Messages deleted per transaction when deleting a topic (newest first).",
  }),
  delete_topic_time_budget_ms: setting.int({
    default: 50000,
    min: 0,
    max: 600000,
    description:
      "How long one delete_topic request works before answering complete=false (the client repeats it).",
  }),
  max_queue_events: setting.int({
    default: 10000,
    min: 10,
    max: 1000000,
    description: "Unacknowledged events kept per queue; a queue that overflows is dropped.",
  }),
  max_queues_per_user: setting.int({
    default: 100,
    min: 1,
    max: 100000,
    description:
      "Event queues one user may hold; registering one more drops the user's least recently polled queue.",
  }),
  max_parked_polls_per_user: setting.int({
    default: 64,
    min: 1,
    max: 100000,
    description:
      "Long-polls one user may have waiting at once; one more answers the oldest at once with a heartbeat.",
  }),
  max_total_queued_events: setting.int({
    default: 500000,
    min: 100,
    max: 100000000,
    description:
      "Unacknowledged events kept in memory over all queues; beyond it the queues holding the most are dropped.",
  }),
  max_concurrent_body_parses: setting.int({
    default: 64,
    min: 1,
    max: 100000,
    description:
      "Request bodies read and parsed at once; ten times as many more wait, beyond that a request gets a 429.",
  }),
  body_limit_bytes: setting.int({
    default: 1048576,
    min: 65536,
    max: 100 * 1024 * 1024,
    description: "Largest request body accepted; larger ones get HTTP 413.",
  }),
  request_timeout_secs: setting.int({
    default: 30,
    min: 1,
    max: 3600,
    description: "Time a client has to send its whole request (long-poll waits are not counted).",
  }),
  web_public_streams_enabled: setting.bool({
    default: true,
    description:
      "Zulip's WEB_PUBLIC_STREAMS_ENABLED: whether web-public channels may exist (an organization must also enable spectator access).",
  }),
  presence_flush_interval_ms: setting.int({
    default: 5000,
    min: 10,
    max: 600000,
    description:
      "How often presence changes (every client pings every minute) are written to the database, all in one transaction. A crash loses at most this much presence.",
  }),
  max_file_upload_size_mib: setting.int({
    default: 25,
    min: 1,
    max: 1024 * 1024,
    description:
      "Largest file POST /user_uploads accepts, in MiB (Zulip's MAX_FILE_UPLOAD_SIZE; register's max_file_upload_size_mib). Enforced while the upload streams to disk.",
  }),
  max_avatar_file_size_mib: setting.int({
    default: 5,
    min: 1,
    max: 1024,
    description: "Largest image POST /users/me/avatar accepts, in MiB (register's max_avatar_file_size_mib).",
  }),
  max_emoji_file_size_mib: setting.int({
    default: 5,
    min: 1,
    max: 1024,
    description:
      "Largest image POST /realm/emoji/{emoji_name} accepts, in MiB (Zulip's MAX_EMOJI_FILE_SIZE_MIB).",
  }),
  realm_upload_quota_mib: setting.int({
    default: 0,
    min: 0,
    max: 1024 * 1024 * 1024,
    description:
      "Total size of an organization's uploaded files, in MiB, beyond which uploads are refused (register's realm_upload_quota_mib). 0: no quota.",
  }),
  unclaimed_upload_retention_days: setting.int({
    default: 35,
    min: 1,
    max: 36500,
    description:
      "Uploaded files that no message links are deleted this many days after upload (Zulip: five weeks).",
  }),
  upload_sweep_interval_secs: setting.int({
    default: 3600,
    min: 1,
    max: 7 * 24 * 3600,
    description:
      "How often the server deletes unclaimed uploads past their retention and stored files nothing refers to.",
  }),
  shutdown_timeout_secs: setting.int({
    default: 10,
    min: 0,
    max: 3600,
    description:
      "On SIGTERM/SIGINT, how long the stop takes at most: in-flight requests get this less a short reserve (a quarter, 2 s at most) before their connections are cut and the work still running is abandoned; event queues are saved either way.",
  }),
  session_idle_timeout_secs: setting.int({
    default: 1209600,
    min: 60,
    max: 365 * 24 * 3600,
    description:
      "A web client session not used for this long ends (its browser is sent to the login page). Zulip: two weeks.",
  }),
  session_max_age_secs: setting.int({
    default: 7776000,
    min: 60,
    max: 10 * 365 * 24 * 3600,
    description: "A web client session ends this long after its login, however active it is.",
  }),
  rate_limiting: setting.bool({
    default: true,
    description: "Whether the rate_limit_* rules apply (Zulip's RATE_LIMITING).",
  }),
  rate_limit_api_by_user: setting.string({
    default: "60:200",
    parse: parseRateLimitRules,
    description:
      "Zulip's api_by_user: requests per user, as seconds:requests rules (comma-separated; empty: none).",
  }),
  rate_limit_api_by_ip: setting.string({
    default: "60:100",
    parse: parseRateLimitRules,
    description:
      "Zulip's api_by_ip: unauthenticated requests (and failed authentications) per client IP address.",
  }),
  rate_limit_authenticate_by_username: setting.string({
    default: "1800:5",
    parse: parseRateLimitRules,
    description:
      "Zulip's authenticate_by_username: password logins (POST /fetch_api_key) per username; a success clears the count. Also limits password reset requests per address.",
  }),
  trusted_proxies: setting.string({
    default: "",
    parse: parseCidrs,
    description:
      "Comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For is believed (for per-IP limits).",
  }),
  webhook_allowed_private_hosts: setting.string({
    default: "",
    list: true,
    parse: parseHostList,
    description:
      "Host names, IP addresses or CIDR ranges of private or loopback targets outgoing webhooks may reach (by default they may not).",
  }),
  outgoing_webhook_timeout_ms: setting.int({
    default: 10000,
    min: 1,
    max: 600000,
    description: "How long an outgoing webhook request may take before it counts as failed and is retried.",
  }),
  outgoing_webhook_retry_delay_ms: setting.int({
    default: 1000,
    min: 0,
    max: 3600000,
    description:
      "Wait before retrying an outgoing webhook after a timeout or connection error; doubled on each retry.",
  }),
  missed_message_email_delay_secs: setting.int({
    // A week: the longest email_notifications_batching_period_seconds allows, so no cap.
    default: 604800,
    min: 1,
    max: 604800,
    description:
      "The longest an email about missed direct messages or mentions waits for more of them (a burst becomes one email and what was read meanwhile is left out): each user waits their own email_notifications_batching_period_seconds (Zulip's default: 120), at most this.",
  }),
  smtp_host: setting.string({
    default: "",
    description:
      "The SMTP server chatd sends email through; empty: email is off, and each email is written as a .eml file under <data_dir>/outbox/ instead.",
  }),
  smtp_port: setting.int({ default: 587, min: 1, max: 65535, description: "The SMTP server's port." }),
  smtp_security: setting.enum({
    default: "starttls",
    choices: ["none", "starttls", "tls"] as const,
    description:
      "`starttls`: upgrade to TLS after connecting (required); `tls`: TLS from the start (port 465); `none`: plain (a relay on localhost only).",
  }),
  smtp_username: setting.string({ default: "", description: "SMTP login; empty: no authentication." }),
  smtp_password: setting.string({
    default: "",
    description: "SMTP password; never logged or shown.",
  }),
  email_from: setting.string({
    default: "",
    description:
      "The From address of every email; empty: `noreply@` the host name of `external_url` (or of the listening URL).",
  }),
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;
export type Config = { readonly [K in SettingKey]: ValueOf<(typeof SETTINGS)[K]> } & {
  readonly data_dir: string;
};
export type LogLevel = Config["log_level"];

/** Each setting's value when nothing sets it. */
export const DEFAULTS = Object.freeze(
  Object.fromEntries(Object.entries(SETTINGS).map(([key, spec]) => [key, spec.default])),
) as { readonly [K in SettingKey]: Config[K] };

/**
 * Former names still accepted (in settings.json and as CHATD_* variables), each
 * for the setting that replaced it. Within one layer the current name wins.
 */
export const SETTING_ALIASES: Readonly<Record<string, SettingKey>> = {
  sqlite_busy_timeout_ms: "db_lock_timeout_ms",
};

export const SETTINGS_FILE_NAME = "settings.json";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export const envName = (key: string) => `CHATD_${key.toUpperCase()}`;

/** --data-dir, else $CHATD_DATA_DIR (when set and not empty), else ./data in the current directory. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? (env.CHATD_DATA_DIR || "data"));
}

function readJsonObject(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new ConfigError(`Cannot read settings file ${path}: ${(err as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`Settings file ${path} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function coerce(key: SettingKey, value: unknown, source: string): string | number | boolean {
  const spec: SettingSpec = SETTINGS[key];
  if (spec.list && Array.isArray(value) && value.every((v) => typeof v === "string")) {
    value = value.join(",");
  }
  if (spec.kind === "bool") {
    if (value === true || value === "true") return true;
    if (value === false || value === "false") return false;
    throw new ConfigError(`${key} (${source}) must be true or false, got ${JSON.stringify(value)}`);
  }
  if (spec.kind === "int") {
    const n = typeof value === "number" ? value : Number(String(value).trim());
    if (!Number.isInteger(n) || String(value).trim() === "") {
      throw new ConfigError(`${key} (${source}) must be an integer, got ${JSON.stringify(value)}`);
    }
    if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
      throw new ConfigError(`${key} (${source}) must be between ${spec.min} and ${spec.max}`);
    }
    return n;
  }
  if (typeof value !== "string") {
    throw new ConfigError(`${key} (${source}) must be a string, got ${JSON.stringify(value)}`);
  }
  if (spec.choices && !spec.choices.includes(value)) {
    throw new ConfigError(`${key} (${source}) must be one of ${spec.choices.join(", ")}`);
  }
  if (spec.kind === "url" && value !== "" && !isAbsoluteHttpUrl(value)) {
    throw new ConfigError(
      `${key} (${source}) must be an absolute http(s) URL, e.g. https://chat.example.com; got ${JSON.stringify(value)}`,
    );
  }
  try {
    spec.parse?.(value);
  } catch (err) {
    throw new ConfigError(`${key} (${source}): ${(err as Error).message}`);
  }
  return value;
}

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** At most `requests` per `windowSecs`; a domain may have several rules (all must hold). */
export interface RateLimitRule {
  readonly windowSecs: number;
  readonly requests: number;
}

/**
 * Zulip's rule syntax ("seconds:requests", comma-separated, as in UserProfile.rate_limits):
 * "60:200" or "60:100,3600:1000"; the empty string means no limit.
 */
export function parseRateLimitRules(text: string): RateLimitRule[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  return trimmed.split(",").map((part) => {
    const match = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(part);
    const windowSecs = Number(match?.[1]);
    const requests = Number(match?.[2]);
    if (!match || windowSecs < 1 || requests < 1) {
      throw new Error(`invalid rule '${part.trim()}' (expected seconds:requests, both at least 1)`);
    }
    return { windowSecs, requests };
  });
}

/**
 * A PostgreSQL connection URL, or the empty string (SQLite). A malformed one is refused
 * without echoing it: it may hold a password.
 */
export function parseDatabaseUrl(text: string): URL | null {
  if (text === "") return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error("must be a URL such as postgres://user:password@host:5432/chatd");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error("must start with postgres:// (only PostgreSQL is supported besides SQLite)");
  }
  if (url.hostname === "" || url.pathname.replace(/^\//, "") === "") {
    throw new Error("must name a host and a database, e.g. postgres://user:password@host:5432/chatd");
  }
  return url;
}

/** The URL without its password, for messages and logs. */
export function redactDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== "") url.password = "***";
    return url.toString();
  } catch {
    return "(malformed database_url)";
  }
}

export interface Cidr {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

/** "10.0.0.0/8, ::1": addresses or CIDR ranges, comma-separated; empty means none. */
export function parseCidrs(text: string): Cidr[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => {
      const [address = "", prefixText, extra] = part.split("/");
      const version = isIP(address);
      const maxPrefix = version === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? maxPrefix : Number(prefixText);
      if (
        version === 0 ||
        extra !== undefined ||
        (prefixText !== undefined && !/^\d+$/.test(prefixText)) ||
        prefix > maxPrefix
      ) {
        throw new Error(`invalid address or CIDR range '${part}'`);
      }
      return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
    });
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i;

/** "hooks.internal, 10.0.0.0/8, ::1": host names, addresses or CIDR ranges; empty means none. */
export function parseHostList(text: string): string[] {
  const entries = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  for (const entry of entries) {
    if (isIP(entry.split("/")[0]!) !== 0) parseCidrs(entry);
    else if (!HOST_NAME.test(entry)) throw new Error(`invalid host '${entry}'`);
  }
  return entries;
}

function applyLayer(target: Record<string, unknown>, layer: Record<string, unknown>, source: string): void {
  // Aliases first, so that the current name given in the same layer overrides them.
  const entries = Object.entries(layer).sort(
    ([a], [b]) => Number(b in SETTING_ALIASES) - Number(a in SETTING_ALIASES),
  );
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    const key = name in SETTINGS ? name : SETTING_ALIASES[name];
    if (key === undefined) throw new ConfigError(`Unknown setting '${name}' in ${source}`);
    target[key] = coerce(key as SettingKey, value, source);
  }
}

export interface LoadConfigOptions {
  dataDir?: string;
  /** Flag values, keyed by setting name; undefined entries are skipped. */
  overrides?: Partial<Record<SettingKey, unknown>>;
  env?: NodeJS.ProcessEnv;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const dataDir = resolveDataDir(options.dataDir, env);
  const values: Record<string, unknown> = {};
  // Checked like any layer: a default outside its own bounds stops the server.
  applyLayer(values, DEFAULTS, "defaults");
  const settingsFile = join(dataDir, SETTINGS_FILE_NAME);
  if (existsSync(settingsFile)) applyLayer(values, readJsonObject(settingsFile), settingsFile);
  const fromEnv: Record<string, unknown> = {};
  for (const key of [...Object.keys(SETTING_ALIASES), ...Object.keys(SETTINGS)])
    fromEnv[key] = env[envName(key)];
  applyLayer(values, fromEnv, "environment");
  applyLayer(values, options.overrides ?? {}, "command line");
  return Object.freeze({ ...values, data_dir: dataDir }) as Config;
}

/** Writes one setting into <data_dir>/settings.json, keeping the others. */
export function saveSetting(dataDir: string, key: SettingKey, value: string | number): void {
  const file = join(dataDir, SETTINGS_FILE_NAME);
  const current = existsSync(file) ? readJsonObject(file) : {};
  coerce(key, value, file);
  writeFileSync(file, `${JSON.stringify({ ...current, [key]: value }, null, 2)}\n`, { mode: 0o600 });
  // The mode above applies only to a new file; the data directory's files are private.
  chmodSync(file, 0o600);
}

/** Builds a config without touching the filesystem beyond defaults (tests). */
export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ dataDir, env: {} });
  return Object.freeze({ ...base, ...overrides, data_dir: dataDir });
}

export function realmUrl(config: Config): string {
  if (config.external_url) return config.external_url.replace(/\/+$/, "");
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

/** Host used in dummy API emails such as user7@chat.example.com. */
export function emailHost(config: Config): string {
  return new URL(realmUrl(config)).hostname.replace(/^\[|\]$/g, "");
}
