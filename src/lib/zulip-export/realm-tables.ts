import { createHash, randomBytes } from "node:crypto";
import type { Knex } from "knex";
import type { JsonTablesFile } from "./json-file.js";
import { booleanColumns, convertRow, groupSettingColumns, pages, type Row, type TableMap } from "./rows.js";
import { DIRECT_MESSAGE_GROUP, EXPORT_TYPE, PERSONAL, STREAM, type ExportScope } from "./scope.js";

/**
 * The tables of realm.json (Zulip's get_realm_config), written one after the other, each
 * read in pages. Where Zulip limits a table to consenting users (limit_to_consenting_users)
 * so does this; the comments name the Zulip table each chatd table becomes.
 */

/** Zulip's topics_policy values (RealmTopicsPolicyEnum / StreamTopicsPolicyEnum). */
const TOPICS_POLICY: Record<string, number> = {
  inherit: 1,
  allow_empty_topic: 2,
  disable_empty_topic: 3,
  empty_topic_only: 4,
};
/** Zulip's MessageEditHistoryVisibilityPolicyEnum. */
const EDIT_HISTORY_VISIBILITY: Record<string, number> = { all: 1, moves: 2, none: 3 };
/** Zulip's UserProfile.EMAIL_ADDRESS_VISIBILITY_NOBODY. */
const EMAIL_VISIBLE_TO_NOBODY = 5;
/** Zulip's STREAM_ASSIGNMENT_COLORS (the first few): a non-consenting member's scrubbed subscription color. */
const SCRUBBED_COLORS = ["#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55"];

export interface RealmTablesContext {
  knex: Knex;
  scope: ExportScope;
  /** Host for the made-up addresses of members who show their email to nobody. */
  host: string;
}

export interface UserExportState {
  /** Users exported as mirror dummies (inactive, no private data): Zulip's zerver_userprofile_mirrordummy. */
  dummies: Set<number>;
  users: number;
  bots: number;
}

async function table(
  ctx: RealmTablesContext,
  file: JsonTablesFile,
  name: string,
  chatdTable: string,
  map: TableMap,
  where: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  key = "id",
  extra: (row: Row, out: Row, index: number) => Row | null = (_r, out) => out,
): Promise<number> {
  const booleans = await booleanColumns(ctx.knex, chatdTable);
  await file.table(name);
  let index = 0;
  for await (const page of pages(() => where(ctx.knex(`${chatdTable} as t`)).select("t.*"), `t.${key}`)) {
    for (const row of page) {
      const out = extra(row, convertRow(row, map, booleans), ++index);
      if (out) await file.row(out);
    }
  }
  return index;
}

/** A table keyed by something else than one increasing id: read whole (they are small), ids numbered. */
async function smallTable(
  ctx: RealmTablesContext,
  file: JsonTablesFile,
  name: string,
  chatdTable: string,
  map: TableMap,
  where: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  orderBy: string[],
  keep: (row: Row) => boolean = () => true,
): Promise<void> {
  const booleans = await booleanColumns(ctx.knex, chatdTable);
  const rows = await where(ctx.knex(`${chatdTable} as t`))
    .orderBy(orderBy.map((c) => `t.${c}`))
    .select<Row[]>("t.*");
  // chatd's key is the row's columns; Zulip's rows carry an id of their own, numbered here.
  await file.tableOf(
    name,
    rows.filter(keep).map((row, i) => ({ id: i + 1, ...convertRow(row, map, booleans) })),
  );
}

const ofRealm = (ctx: RealmTablesContext) => (q: Knex.QueryBuilder) =>
  q.where("t.realm_id", ctx.scope.realmId);
const ofRealmUsers =
  (ctx: RealmTablesContext, column = "user_id") =>
  (q: Knex.QueryBuilder) =>
    q.join("users as u", "u.id", `t.${column}`).where("u.realm_id", ctx.scope.realmId);

/** Private data: a consenting user's rows only (Zulip's limit_to_consenting_users). */
const consenting =
  (ctx: RealmTablesContext, column = "user_id") =>
  (row: Row) =>
    ctx.scope.consenting.has(Number(row[column]));

/** A table's rows of consenting users only (a public or consent export leaves the others out). */
const onlyConsenting =
  (ctx: RealmTablesContext) =>
  (row: Row, out: Row): Row | null =>
    consenting(ctx)(row) ? out : null;

export async function writeRealmTables(
  ctx: RealmTablesContext,
  file: JsonTablesFile,
  clients: Map<string, number>,
) {
  const { knex, scope } = ctx;
  const realm = await knex("realms").where({ id: scope.realmId }).first<Row>();
  const realmBooleans = await booleanColumns(knex, "realms");
  // zerver_realm. Zulip keeps these enums as integers; the chatd_ copies keep chatd's names.
  const realmRow = convertRow(
    realm,
    {
      foreignKeys: [
        ...groupSettingColumns(realm),
        "new_stream_announcements_stream_id",
        "signup_announcements_stream_id",
        "zulip_update_announcements_stream_id",
        "moderation_request_channel_id",
      ],
      json: ["extra_settings"],
      chatdOnly: ["extra_settings", "org_type_name"],
    },
    realmBooleans,
  );
  realmRow.topics_policy = TOPICS_POLICY[String(realm.topics_policy)] ?? null;
  realmRow.chatd_topics_policy = realm.topics_policy;
  realmRow.message_edit_history_visibility_policy =
    EDIT_HISTORY_VISIBILITY[String(realm.message_edit_history_visibility_policy)] ?? null;
  realmRow.chatd_message_edit_history_visibility_policy = realm.message_edit_history_visibility_policy;
  await file.tableOf("zerver_realm", [realmRow]);

  // zerver_realmuserdefault (chatd keys it by realm: its id is the realm's).
  const defaults = (await knex("realm_user_settings_defaults").where({ realm_id: scope.realmId }).first()) as
    Row | undefined;
  const defaultBooleans = await booleanColumns(knex, "realm_user_settings_defaults");
  await file.tableOf(
    "zerver_realmuserdefault",
    defaults
      ? [{ id: scope.realmId, ...convertRow(defaults, { foreignKeys: ["realm_id"] }, defaultBooleans) }]
      : [],
  );

  // zerver_client: the sending clients of the exported messages (chatd keeps a name per message).
  await file.tableOf(
    "zerver_client",
    [...clients].map(([name, id]) => ({ id, name })),
  );

  const userState = await writeUsers(ctx, file, realm, defaults ?? null, defaultBooleans);
  await file.tableOf("zerver_userprofile_crossrealm", []);

  // zerver_stream, with Zulip's integer topics_policy.
  await table(
    ctx,
    file,
    "zerver_stream",
    "streams",
    {
      foreignKeys: ["realm_id", "creator_id", "folder_id", "recipient_id"],
      chatdOnly: ["name_key"],
    },
    ofRealm(ctx),
    "id",
    (row, out) => {
      for (const column of groupSettingColumns(row)) {
        out[column.replace(/_id$/, "")] = row[column];
        delete out[column];
      }
      out.topics_policy = TOPICS_POLICY[String(row.topics_policy)] ?? null;
      out.chatd_topics_policy = row.topics_policy;
      return out;
    },
  );

  await writeRecipientsAndSubscriptions(ctx, file);

  // zerver_huddle (DirectMessageGroup): Zulip's huddle_hash is the SHA-1 of the sorted member ids.
  await table(
    ctx,
    file,
    "zerver_huddle",
    "direct_message_groups",
    { foreignKeys: ["realm_id"], rename: { user_ids_key: "chatd_user_ids_key" } },
    ofRealm(ctx),
    "id",
    (row, out) => {
      if (!scope.directMessageGroupIds.has(Number(row.id))) return null;
      const ids = String(row.user_ids_key)
        .split(",")
        .map(Number)
        .sort((a, b) => a - b);
      out.huddle_hash = createHash("sha1").update(ids.join(",")).digest("hex");
      return out;
    },
  );

  await table(
    ctx,
    file,
    "zerver_defaultstream",
    "default_streams",
    { foreignKeys: ["realm_id", "stream_id"] },
    ofRealm(ctx),
    "stream_id",
    (row, out, i) => ({ id: i, ...out }),
  );

  await writeUserGroups(ctx, file);

  // zerver_customprofilefield and their values (public in Zulip: every user's are exported).
  await table(
    ctx,
    file,
    "zerver_customprofilefield",
    "custom_profile_fields",
    { foreignKeys: ["realm_id"] },
    ofRealm(ctx),
  );
  await smallTable(
    ctx,
    file,
    "zerver_customprofilefieldvalue",
    "custom_profile_field_values",
    { rename: { user_id: "user_profile", field_id: "field" } },
    ofRealmUsers(ctx),
    ["user_id", "field_id"],
  );

  await table(
    ctx,
    file,
    "zerver_realmemoji",
    "realm_emoji",
    { foreignKeys: ["realm_id", "author_id"] },
    ofRealm(ctx),
  );
  // zerver_realmfilter: linkifiers.
  await table(ctx, file, "zerver_realmfilter", "linkifiers", { foreignKeys: ["realm_id"] }, ofRealm(ctx));
  await table(
    ctx,
    file,
    "zerver_realmplayground",
    "realm_playgrounds",
    { foreignKeys: ["realm_id"] },
    ofRealm(ctx),
  );
  await table(
    ctx,
    file,
    "zerver_channelfolder",
    "channel_folders",
    { foreignKeys: ["realm_id", "creator_id"] },
    ofRealm(ctx),
  );
  // zerver_realmdomain: the domains of emails_restricted_to_domains (Zulip's RealmDomain).
  await table(ctx, file, "zerver_realmdomain", "realm_domains", { foreignKeys: ["realm_id"] }, ofRealm(ctx));
  // chatd keeps no audit log or authentication-method rows.
  await file.tableOf("zerver_realmauditlog", []);
  await file.tableOf("zerver_realmauthenticationmethod", []);

  // Presence is public in Zulip's export; statuses and the rest are private data.
  await table(
    ctx,
    file,
    "zerver_userpresence",
    "user_presence",
    { rename: { user_id: "user_profile" }, chatdOnly: ["changed_at"] },
    ofRealmUsers(ctx),
    "user_id",
    (row, out) => ({ id: Number(row.user_id), ...out, realm: scope.realmId }),
  );
  await table(
    ctx,
    file,
    "zerver_userstatus",
    "user_status",
    { rename: { user_id: "user_profile" } },
    ofRealmUsers(ctx),
    "user_id",
    (row, out) => (consenting(ctx)(row) ? { id: Number(row.user_id), ...out } : null),
  );
  await writeUserTopics(ctx, file);
  await smallTable(
    ctx,
    file,
    "zerver_muteduser",
    "muted_users",
    { rename: { user_id: "user_profile", muted_user_id: "muted_user" } },
    ofRealmUsers(ctx),
    ["user_id", "muted_user_id"],
    consenting(ctx),
  );
  await smallTable(
    ctx,
    file,
    "zerver_alertword",
    "alert_words",
    { rename: { user_id: "user_profile" } },
    ofRealmUsers(ctx),
    ["user_id", "word"],
    consenting(ctx),
  );
  await table(
    ctx,
    file,
    "zerver_navigationview",
    "navigation_views",
    { rename: { user_id: "user" } },
    ofRealmUsers(ctx),
    "id",
    onlyConsenting(ctx),
  );
  await table(
    ctx,
    file,
    "zerver_savedsnippet",
    "saved_snippets",
    { foreignKeys: ["realm_id"], rename: { user_id: "user_profile" } },
    ofRealm(ctx),
    "id",
    onlyConsenting(ctx),
  );
  // Drafts: Zulip's export leaves them out (ephemeral); chatd keeps a consenting user's.
  await table(
    ctx,
    file,
    "zerver_draft",
    "drafts",
    { rename: { user_id: "user_profile" }, chatdOnly: ["type", "to_ids"], json: ["to_ids"] },
    ofRealmUsers(ctx),
    "id",
    onlyConsenting(ctx),
  );
  await writeScheduledMessages(ctx, file);

  // Bots' services, storage and config: private data of the bot (Zulip: limit_to_consenting_users).
  const botRow = (row: Row) => ctx.scope.consenting.has(Number(row.bot_user_id));
  await table(
    ctx,
    file,
    "zerver_service",
    "bot_services",
    { rename: { bot_user_id: "user_profile" } },
    ofRealmUsers(ctx, "bot_user_id"),
    "id",
    (row, out) => (botRow(row) ? out : null),
  );
  await smallTable(
    ctx,
    file,
    "zerver_botstoragedata",
    "bot_storage",
    { rename: { bot_user_id: "bot_profile" } },
    ofRealmUsers(ctx, "bot_user_id"),
    ["bot_user_id", "key"],
    botRow,
  );
  await smallTable(
    ctx,
    file,
    "zerver_botconfigdata",
    "bot_config_data",
    { rename: { bot_user_id: "bot_profile" } },
    ofRealmUsers(ctx, "bot_user_id"),
    ["bot_user_id", "key"],
    botRow,
  );
  return userState;
}

/** zerver_userprofile and zerver_userprofile_mirrordummy (Zulip's custom_fetch_user_profile). */
async function writeUsers(
  ctx: RealmTablesContext,
  file: JsonTablesFile,
  realm: Row,
  defaults: Row | null,
  defaultBooleans: Set<string>,
): Promise<UserExportState> {
  const { knex, scope } = ctx;
  const booleans = await booleanColumns(knex, "users");
  const map: TableMap = {
    foreignKeys: [
      "realm_id",
      "bot_owner_id",
      "default_sending_stream_id",
      "default_events_register_stream_id",
    ],
    // Never the password hash (Zulip leaves out password and api_key; chatd's API keys are in another table).
    omit: ["password_hash"],
    json: ["settings"],
    chatdOnly: ["is_deleted", "is_system_bot", "settings", "avatar_file"],
  };
  const state: UserExportState = { dummies: new Set(), users: 0, bots: 0 };
  const dummies: Row[] = [];
  await file.table("zerver_userprofile");
  for await (const page of pages(() => knex("users").where({ realm_id: realm.id }).select("*"), "id")) {
    for (const row of page) {
      const out = convertRow(row, map, booleans);
      out.recipient = scope.personalRecipients.get(Number(row.id)) ?? null;
      const id = Number(row.id);
      if (!scope.consenting.has(id) && scope.exportType !== EXPORT_TYPE.full) {
        // A consent export makes active non-consenting members inactive mirror dummies
        // (they come back by signing up with their address); deactivated ones stay so.
        if (scope.exportType === EXPORT_TYPE.fullWithConsent && out.is_active === true) {
          out.is_mirror_dummy = true;
          out.is_active = false;
        }
        if (Number(row.email_address_visibility) === EMAIL_VISIBLE_TO_NOBODY) {
          // Their address stays hidden from the exporting administrator too.
          out.delivery_email = `exported-user-${randomBytes(16).toString("hex")}@${ctx.host}`;
          if (scope.exportType === EXPORT_TYPE.public) {
            out.is_mirror_dummy = true;
            out.is_active = false;
          }
        }
        // Their personal settings are private data: the realm's defaults instead.
        if (defaults) {
          for (const [name, value] of Object.entries(defaults)) {
            if (name === "realm_id" || name === "email_address_visibility") continue;
            out[name] = defaultBooleans.has(name) ? value === true || value === 1 : value;
          }
        }
        out.chatd_settings = {};
      }
      if (out.is_bot === true) state.bots++;
      else state.users++;
      if (out.is_mirror_dummy === true) {
        state.dummies.add(id);
        dummies.push(out);
      } else await file.row(out);
    }
  }
  await file.tableOf("zerver_userprofile_mirrordummy", dummies);
  return state;
}

/**
 * zerver_recipient and zerver_subscription. chatd subscribes users to channels only; Zulip
 * also subscribes each user to their personal recipient and each member to their group
 * DMs' recipient. Those rows are made here, numbered after chatd's own subscription ids
 * and marked `chatd_synthetic` (chatd's importer skips them: it has the groups' members).
 */
async function writeRecipientsAndSubscriptions(ctx: RealmTablesContext, file: JsonTablesFile) {
  const { knex, scope } = ctx;
  await file.table("zerver_recipient");
  const channelRecipients = () =>
    knex("recipients as r")
      .join("streams as c", "c.recipient_id", "r.id")
      .where({ "r.type": STREAM, "c.realm_id": scope.realmId })
      .select("r.*");
  for await (const page of pages(channelRecipients, "r.id")) for (const r of page) await file.row(r);
  for (const [userId, id] of [...scope.personalRecipients].sort((a, b) => a[1] - b[1])) {
    await file.row({ id, type: PERSONAL, type_id: userId });
  }
  const groupRecipients = new Map<number, number>();
  for (const groupIds of chunks([...scope.directMessageGroupIds], 500)) {
    const rows = await knex("recipients")
      .where({ type: DIRECT_MESSAGE_GROUP })
      .whereIn("type_id", groupIds)
      .orderBy("id")
      .select<Row[]>("*");
    for (const r of rows) {
      groupRecipients.set(Number(r.type_id), Number(r.id));
      await file.row(r);
    }
  }

  const booleans = await booleanColumns(knex, "subscriptions");
  await file.table("zerver_subscription");
  let lastId = 0;
  const subscriptions = () =>
    knex("subscriptions as t")
      .join("streams as c", "c.id", "t.stream_id")
      .where("c.realm_id", scope.realmId)
      .select("t.*", "c.recipient_id");
  for await (const page of pages(subscriptions, "t.id")) {
    for (const row of page) {
      lastId = Number(row.id);
      const out = convertRow(
        row,
        { rename: { user_id: "user_profile" }, omit: ["stream_id"], foreignKeys: ["recipient_id"] },
        booleans,
      );
      if (scope.consenting.has(Number(row.user_id))) {
        await file.row(out);
      } else {
        // Zulip's custom_process_subscription_in_realm_config: a non-consenting member's
        // subscription keeps only who, where and whether it is active.
        await file.row({
          id: out.id,
          user_profile: out.user_profile,
          recipient: out.recipient,
          active: out.active,
          is_user_active: out.is_user_active,
          color: SCRUBBED_COLORS[Number(out.id) % SCRUBBED_COLORS.length],
          is_muted: false,
          pin_to_top: false,
          desktop_notifications: null,
          audible_notifications: null,
          push_notifications: null,
          email_notifications: null,
          wildcard_mentions_notify: null,
        });
      }
    }
  }
  const maxId = Number(
    ((await knex("subscriptions").max({ max: "id" }).first()) as { max: unknown } | undefined)?.max ?? 0,
  );
  let synthetic = Math.max(maxId, lastId);
  const users = await knex("users").where({ realm_id: scope.realmId }).select<Row[]>("id", "is_active");
  const active = new Map(users.map((u) => [Number(u.id), u.is_active === true || u.is_active === 1]));
  for (const [userId, recipient] of [...scope.personalRecipients].sort((a, b) => a[0] - b[0])) {
    await file.row(syntheticSubscription(++synthetic, userId, recipient, active.get(userId) ?? false));
  }
  for (const groupIds of chunks([...scope.directMessageGroupIds], 500)) {
    const groups = await knex("direct_message_groups")
      .whereIn("id", groupIds)
      .orderBy("id")
      .select<Row[]>("*");
    for (const group of groups) {
      const recipient = groupRecipients.get(Number(group.id));
      if (recipient === undefined) continue;
      for (const userId of String(group.user_ids_key).split(",").map(Number)) {
        await file.row(syntheticSubscription(++synthetic, userId, recipient, active.get(userId) ?? false));
      }
    }
  }
}

function syntheticSubscription(id: number, userId: number, recipient: number, isUserActive: boolean): Row {
  return {
    id,
    user_profile: userId,
    recipient,
    active: true,
    is_user_active: isUserActive,
    color: SCRUBBED_COLORS[0],
    is_muted: false,
    pin_to_top: false,
    desktop_notifications: null,
    audible_notifications: null,
    push_notifications: null,
    email_notifications: null,
    wildcard_mentions_notify: null,
    chatd_synthetic: true,
  };
}

/** zerver_usergroup, zerver_namedusergroup and the two membership tables. */
async function writeUserGroups(ctx: RealmTablesContext, file: JsonTablesFile) {
  const { scope } = ctx;
  await table(ctx, file, "zerver_usergroup", "user_groups", { omit: [] }, ofRealm(ctx), "id", (row) => ({
    id: Number(row.id),
    realm: scope.realmId,
  }));
  // Named groups (Zulip's NamedUserGroup, whose key usergroup_ptr is the UserGroup's id); a
  // group without a name is an anonymous group-setting value: a UserGroup only.
  await table(
    ctx,
    file,
    "zerver_namedusergroup",
    "user_groups",
    { foreignKeys: ["creator_id"], omit: ["id", "realm_id"] },
    (q) => ofRealm(ctx)(q).whereNotNull("t.name"),
    "id",
    (row, out) => {
      for (const column of groupSettingColumns(row)) {
        out[column.replace(/_id$/, "")] = row[column];
        delete out[column];
      }
      return { usergroup_ptr: Number(row.id), ...out, realm_for_sharding: scope.realmId };
    },
  );
  await smallTable(
    ctx,
    file,
    "zerver_usergroupmembership",
    "user_group_members",
    { rename: { group_id: "user_group", user_id: "user_profile" } },
    (q) => q.join("user_groups as g", "g.id", "t.group_id").where("g.realm_id", scope.realmId),
    ["group_id", "user_id"],
  );
  await smallTable(
    ctx,
    file,
    "zerver_groupgroupmembership",
    "user_group_subgroups",
    { rename: { supergroup_id: "supergroup", subgroup_id: "subgroup" } },
    (q) => q.join("user_groups as g", "g.id", "t.supergroup_id").where("g.realm_id", scope.realmId),
    ["supergroup_id", "subgroup_id"],
  );
}

/** zerver_usertopic (private data), with the channel's recipient as Zulip keeps it. */
async function writeUserTopics(ctx: RealmTablesContext, file: JsonTablesFile) {
  const { knex, scope } = ctx;
  const rows = await knex("user_topics as t")
    .join("streams as c", "c.id", "t.stream_id")
    .where("c.realm_id", scope.realmId)
    .whereIn("t.user_id", [...scope.consenting])
    .orderBy(["t.user_id", "t.stream_id", "t.topic_key"])
    .select<Row[]>(
      "t.user_id",
      "t.stream_id",
      "c.recipient_id",
      "t.topic_name",
      "t.last_updated",
      "t.visibility_policy",
    );
  await file.tableOf(
    "zerver_usertopic",
    rows.map((r, i) => ({
      id: i + 1,
      user_profile: r.user_id,
      stream: r.stream_id,
      recipient: r.recipient_id,
      topic_name: r.topic_name,
      last_updated: Number(r.last_updated),
      visibility_policy: r.visibility_policy,
    })),
  );
}

/** zerver_scheduledmessage: a consenting sender's (Zulip's get_exportable_scheduled_message_ids). */
async function writeScheduledMessages(ctx: RealmTablesContext, file: JsonTablesFile) {
  const { scope } = ctx;
  const streamRecipients = new Map(
    (await ctx.knex("streams").where({ realm_id: scope.realmId }).select<Row[]>("id", "recipient_id")).map(
      (r) => [Number(r.id), r.recipient_id],
    ),
  );
  await table(
    ctx,
    file,
    "zerver_scheduledmessage",
    "scheduled_messages",
    {
      foreignKeys: ["realm_id", "sender_id", "stream_id", "delivered_message_id"],
      rename: { topic: "subject" },
      omit: ["claimed_by", "claimed_until"],
      chatdOnly: ["recipient_type", "to_user_ids"],
      json: ["to_user_ids"],
    },
    ofRealm(ctx),
    "id",
    (row, out) => {
      if (!scope.consenting.has(Number(row.sender_id))) return null;
      // Zulip's recipient: the channel's, or the one person's; a group's is left to chatd_to_user_ids.
      const to = out.chatd_to_user_ids;
      out.recipient =
        row.stream_id !== null
          ? (streamRecipients.get(Number(row.stream_id)) ?? null)
          : Array.isArray(to) && to.length === 1
            ? (scope.personalRecipients.get(Number(to[0])) ?? null)
            : null;
      return out;
    },
  );
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
