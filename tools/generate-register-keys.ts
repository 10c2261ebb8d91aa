/**
 * Builds test/fixtures/register-keys.json: every top-level key Zulip's OpenAPI documents
 * for the POST /register response (components/schemas/register_queue_200_response), with
 * the fetch type that brings it and the JSON type of its value. test/api/register-complete.test.ts
 * registers with no fetch_event_types and checks each key.
 *
 *   npm run build && node dist/tools/generate-register-keys.js <path to zulip-openapi.yaml>
 *
 * (the description in SPEC's reference directory: ../shared/reference/zulip-openapi.yaml).
 * The YAML is read with js-yaml, the parser mocha itself depends on. Keys whose fetch
 * type another piece of work is building are marked `pending` with its name here;
 * whoever builds them deletes their entry from PENDING and regenerates.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";

const OUTPUT = new URL("../../test/fixtures/register-keys.json", import.meta.url);

/** Fetch types (or single keys) built elsewhere, with who builds them. */
const PENDING_FETCH_TYPES: Record<string, string> = {};
const PENDING_KEYS: Record<string, string> = {};

/** Keys whose description names no fetch type: the type Zulip's fetch_initial_state_data uses. */
const UNSTATED_FETCH_TYPES: Record<string, string> = {
  queue_id: "always",
  last_event_id: "always",
  zulip_feature_level: "always",
  zulip_version: "always",
  zulip_merge_base: "always",
  drafts: "drafts",
  max_reminder_note_length: "realm",
  max_bulk_new_subscription_messages: "realm",
  unread_msgs: "message+update_message_flags",
  // Documented among the legacy display settings (Zulip itself sends it only in
  // user_settings): a user setting, so it comes with them.
  receives_typing_notifications: "update_display_settings",
};

/** Keys present only in some realms. */
const CONDITIONAL: Record<string, string> = {
  demo_organization_scheduled_deletion_date: "only for demo organizations",
};

/** Where chatd's value departs from the documented type, and why. */
const TYPE_OVERRIDES: Record<string, { types: string[]; reason: string }> = {
  jitsi_server_url: {
    types: ["string", "null"],
    reason:
      "Zulip sends null when no Jitsi server is configured (zerver/lib/events.py); chatd configures none",
  },
};

type Schema = Record<string, unknown>;

interface KeyEntry {
  key: string;
  fetch: string;
  /** Present only for clients without the user_settings_object capability. */
  legacy?: true;
  /** JSON types the value may have ("null" when nullable). */
  types: string[];
  /** For arrays: the types of their elements; for maps: the types of their values. */
  items?: string[];
  values?: string[];
  /** For objects with documented fields: their names. */
  fields?: string[];
  pending?: string;
  conditional?: string;
  override?: string;
}

async function main(): Promise<void> {
  const path = process.argv[2];
  if (!path) throw new Error("usage: generate-register-keys <zulip-openapi.yaml>");
  const yaml = createRequire(import.meta.url)("js-yaml") as {
    load(text: string, options: { schema: unknown }): unknown;
    YAML11_SCHEMA: unknown;
  };
  // The YAML 1.1 schema: the file has a !!binary example.
  const doc = yaml.load(readFileSync(path, "utf8"), { schema: yaml.YAML11_SCHEMA }) as Schema;
  const schemas = (doc.components as Schema).schemas as Record<string, Schema>;

  const resolve = (schema: Schema): Schema => {
    let s = schema;
    while (typeof s.$ref === "string") s = { ...schemas[s.$ref.split("/").pop()!]!, ...omit(s, "$ref") };
    if (Array.isArray(s.allOf)) {
      const merged: Schema = { ...omit(s, "allOf") };
      for (const part of s.allOf as Schema[]) {
        const r = resolve(part);
        for (const [k, v] of Object.entries(r)) {
          if (k === "properties") merged.properties = { ...(merged.properties as Schema), ...(v as Schema) };
          else merged[k] ??= v;
        }
      }
      s = merged;
    }
    return s;
  };

  const typesOf = (raw: Schema): string[] => {
    const s = resolve(raw);
    const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
    const types = alternatives
      ? [...new Set(alternatives.flatMap(typesOf))]
      : typeof s.type === "string"
        ? [s.type]
        : s.additionalProperties || s.properties
          ? ["object"]
          : ["any"];
    return s.nullable === true && !types.includes("null") ? [...types, "null"] : types;
  };

  const response = resolve(schemas.register_queue_200_response!);
  const success = new Set(Object.keys((resolve(schemas.JsonSuccessBase!).properties as Schema) ?? {}));
  const entries: KeyEntry[] = [];
  for (const [key, raw] of Object.entries(response.properties as Record<string, Schema>)) {
    if (success.has(key)) continue;
    const s = resolve(raw);
    const description = typeof s.description === "string" ? s.description : "";
    const stated = /Present if `([a-z_]+)` is present in `fetch_event_types`/.exec(description)?.[1];
    const fetch = UNSTATED_FETCH_TYPES[key] ?? stated;
    if (!fetch) throw new Error(`no fetch type for ${key}`);
    const entry: KeyEntry = { key, fetch, types: typesOf(raw) };
    if (/did not include `user_settings_object`/.test(description)) entry.legacy = true;
    if (entry.types.includes("array") && s.items) entry.items = typesOf(s.items as Schema);
    if (
      entry.types.includes("object") &&
      s.additionalProperties &&
      typeof s.additionalProperties === "object"
    )
      entry.values = typesOf(s.additionalProperties as Schema);
    if (entry.types.includes("object") && s.properties) entry.fields = Object.keys(s.properties);
    const pending = PENDING_KEYS[key] ?? PENDING_FETCH_TYPES[fetch];
    if (pending) entry.pending = pending;
    if (CONDITIONAL[key]) entry.conditional = CONDITIONAL[key];
    const override = TYPE_OVERRIDES[key];
    if (override) {
      entry.types = override.types;
      entry.override = override.reason;
    }
    entries.push(entry);
  }
  const version = (doc.info as Schema | undefined)?.version;
  const fixture = {
    source: `zulip-openapi.yaml (info.version ${String(version)}), register_queue_200_response`,
    generator: "tools/generate-register-keys.ts",
    keys: entries,
  };
  // Formatted as `npm run lint` expects it.
  const options = await resolveConfig(fileURLToPath(OUTPUT));
  writeFileSync(OUTPUT, await format(JSON.stringify(fixture), { ...options, parser: "json" }));
  process.stdout.write(`${entries.length} keys written to ${OUTPUT.pathname}\n`);
}

const omit = (s: Schema, key: string): Schema =>
  Object.fromEntries(Object.entries(s).filter(([k]) => k !== key));

await main();
