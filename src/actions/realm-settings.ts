import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { badRequest, mustBeOwner } from "../errors.js";
import { loadWorld } from "../cache/world.js";
import { MAX_REALM_NAME_LENGTH } from "../lib/realm-limits.js";
import { REALM_PROPERTIES, type RealmProperty, type RealmPropertyValue } from "../lib/realm-properties.js";
import { activeUserIds } from "../lib/recipients.js";
import { p, type ParamSpec } from "../params.js";
import { accessChannelById, isPrivate, type ChannelWorld } from "../permissions/channel-access.js";
import {
  validateGroupSettingChange,
  validateGroupSettingUpdateFormat,
  presentNormalized,
  releaseGroupSetting,
  storeGroupSetting,
  type GroupSettingUpdate,
  type NormalizedGroupSetting,
} from "../permissions/group-setting-values.js";
import {
  REALM_GROUP_SETTINGS,
  REALM_GROUP_SETTING_NAMES,
  type RealmGroupSettingName,
} from "../permissions/setting-registry.js";
import { realmGroupSettingEvent, realmPropertyEvent, realmUpdateEvent } from "../presenters/events/realm.js";
import { isOwnerRole } from "../world/roles.js";
import { doUpdateFullMembers } from "./full-members.js";

/**
 * PATCH /realm (administrators; the endpoint checks): Zulip's update_realm. Every value
 * is checked before anything is written, then the changes are written in one
 * transaction, each announced to every active user as Zulip announces it. A value equal
 * to the current one changes nothing and announces nothing.
 */

/** Group settings only organization owners may change (Zulip's update_realm). */
const OWNER_ONLY_GROUP_SETTINGS: ReadonlySet<RealmGroupSettingName> = new Set([
  "create_multiuse_invite_group",
  "can_create_groups",
  "can_invite_users_group",
  "can_manage_all_groups",
  "can_manage_billing_group",
]);

/** Channel-valued settings, in Zulip's order; a negative ID turns one off (-1 in the API). */
const CHANNEL_SETTINGS = [
  "moderation_request_channel_id",
  "new_stream_announcements_stream_id",
  "signup_announcements_stream_id",
  "zulip_update_announcements_stream_id",
] as const;
type ChannelSetting = (typeof CHANNEL_SETTINGS)[number];

/** Values checked before who may change what, as Zulip checks them. */
const CHECKED_FIRST: ReadonlySet<string> = new Set([
  "default_language",
  "video_chat_provider",
  "giphy_rating",
]);

/** Zulip changes the organization type after everything else. */
const CHANGED_LAST = "org_type";

/** The endpoint's parameters, alphabetical as Zulip's update_realm declares them. */
export const REALM_SETTING_PARAMS: ParamSpec = Object.fromEntries(
  [
    ...REALM_PROPERTIES.map((property) => [property.name, property.param] as const),
    ...REALM_GROUP_SETTING_NAMES.map(
      (name) => [name, p.json(validateGroupSettingUpdateFormat).optional()] as const,
    ),
    ...CHANNEL_SETTINGS.map((name) => [name, p.int().optional()] as const),
    ["string_id", p.str({ maxLength: MAX_REALM_NAME_LENGTH }).optional()] as const,
  ].sort(([a], [b]) => (a < b ? -1 : 1)),
);

interface PlannedChanges {
  /** `announce`: what clients are shown changes too (else the change is only stored). */
  properties: Array<{ property: RealmProperty; value: RealmPropertyValue; announce: boolean }>;
  groups: Array<{ name: RealmGroupSettingName; value: NormalizedGroupSetting; current: number }>;
  channels: Array<{ name: ChannelSetting; channelId: number | null }>;
}

/** Changes the given settings; returns what changed, as Zulip's response names it. */
export async function checkUpdateRealm(
  app: App,
  actor: UserRow,
  values: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  return app.db.transaction(async (tx) => {
    const world = await loadWorld(app, tx.knex, actor.realm_id);
    const plan = planChanges(world, actor, values);
    const realm = world.realm;
    const realmId = realm.id;
    const recipients = activeUserIds(realm);
    const data: Record<string, unknown> = {};

    const columns: Record<string, unknown> = {};
    for (const { property, value } of plan.properties) Object.assign(columns, property.columns(value));
    for (const { name, value } of plan.groups) {
      columns[`${name}_id`] = await storeGroupSetting(tx, realmId, value);
    }
    for (const { name, channelId } of plan.channels) columns[name] = channelId;
    if (Object.keys(columns).length === 0) return data;
    await tx.knex("realms").where({ id: realmId }).update(columns);
    // A replaced explicit set (an anonymous group) belonged to its setting alone.
    for (const { current } of plan.groups) await releaseGroupSetting(tx, realm, current);
    tx.afterCommit(() => app.realms.invalidate(realmId));

    const last = plan.properties.filter(({ property }) => property.name === CHANGED_LAST);
    for (const { property, value, announce } of plan.properties.filter((change) => !last.includes(change))) {
      if (announce) {
        tx.sendEventOnCommit(realmId, realmPropertyEvent(property.name, property.shown(value)), recipients);
      }
      data[property.name] = typeof value === "string" ? "updated" : value;
      if (property.name === "waiting_period_threshold") {
        await doUpdateFullMembers(app, tx, realm, value as number);
      }
    }
    for (const { name, value } of plan.groups) {
      const apiValue = presentNormalized(value);
      tx.sendEventOnCommit(realmId, realmGroupSettingEvent(name, apiValue), recipients);
      data[name] = apiValue;
    }
    for (const { name, channelId } of plan.channels) {
      tx.sendEventOnCommit(realmId, realmUpdateEvent(name, channelId ?? -1), recipients);
      data[name] = channelId ?? -1;
    }
    for (const { property, value } of last) {
      tx.sendEventOnCommit(realmId, realmPropertyEvent(property.name, property.shown(value)), recipients);
      data[property.name] = value;
    }
    return data;
  });
}

/**
 * Checks every given value, in Zulip's order, and keeps those that change something.
 * Nothing is written before all are known to be good.
 */
function planChanges(world: ChannelWorld, actor: UserRow, values: Readonly<Record<string, unknown>>) {
  const realm = world.realm;
  const row = realm.realm;
  const given = REALM_PROPERTIES.filter((property) => values[property.name] !== undefined);
  const parsed = new Map<RealmProperty, RealmPropertyValue>();
  const parse = (property: RealmProperty) =>
    parsed.set(property, property.parse(values[property.name], property.name));
  for (const property of given) if (CHECKED_FIRST.has(property.name)) parse(property);

  const groupsGiven = REALM_GROUP_SETTING_NAMES.filter((name) => values[name] !== undefined);
  const ownerOnly =
    given.some((property) => property.ownerOnly) ||
    groupsGiven.some((name) => OWNER_ONLY_GROUP_SETTINGS.has(name));
  if (ownerOnly && !isOwnerRole(actor.role)) throw mustBeOwner();
  for (const property of given) if (!parsed.has(property)) parse(property);

  const plan: PlannedChanges = { properties: [], groups: [], channels: [] };
  for (const property of given) {
    const value = parsed.get(property)!;
    const current = property.current(row);
    if (value === current) continue;
    plan.properties.push({ property, value, announce: property.shown(value) !== property.shown(current) });
  }
  for (const name of groupsGiven) {
    const current = row[`${name}_id`];
    // Every setting of the registry is set when the realm is created (actions/realm.ts).
    if (current === null || current === undefined) throw new Error(`realm setting ${name} is unset`);
    const update = values[name] as GroupSettingUpdate;
    const value = validateGroupSettingChange(realm, name, REALM_GROUP_SETTINGS[name], current, update);
    if (value !== null) plan.groups.push({ name, value, current });
  }
  for (const name of CHANNEL_SETTINGS) {
    const channelId = values[name] as number | undefined;
    if (channelId === undefined) continue;
    const target = channelId < 0 ? null : channelSettingTarget(world, actor, name, channelId);
    if (target !== row[name]) plan.channels.push({ name, channelId: target });
  }
  if (values.string_id !== undefined) {
    if (!isOwnerRole(actor.role)) throw mustBeOwner();
    // Only demo organizations may change their subdomain; chatd has none.
    throw badRequest("Must be a demo organization.");
  }
  return plan;
}

/** Zulip's access_stream_by_id without content access: administrators see every channel. */
function channelSettingTarget(world: ChannelWorld, actor: UserRow, name: ChannelSetting, channelId: number) {
  const channel = accessChannelById(world, actor, channelId, { requireContentAccess: false });
  if (name === "moderation_request_channel_id" && !isPrivate(channel)) {
    throw badRequest("Moderation request channel must be private.");
  }
  return channel.id;
}
