import { randomBytes } from "node:crypto";
import type { Knex } from "knex";
import { emailHost, type Config } from "../../../config.js";
import { bulkInsert, bulkInsertIntegers } from "../../../db/insert.js";
import { isPostgres } from "../../../db/dialect.js";
import { createKnex } from "../../../db/knex.js";
import { useSmallSqliteCache } from "../../../db/sqlite-pragmas.js";
import { migrateLatest } from "../../../db/migrate.js";
import { indexMessages } from "../../../db/search.js";
import { htmlToText } from "../../../lib/search.js";
import {
  CHANNEL_GROUP_SETTINGS,
  REALM_GROUP_SETTINGS,
  USER_GROUP_SETTINGS,
} from "../../../permissions/setting-registry.js";
import { LocalBlobStore } from "../../../lib/storage/local.js";
import { uploadsDir } from "../../../lib/storage/paths.js";
import { isMeMessage } from "../../../render/message.js";
import { resetSequences } from "../../db-copy/copy.js";
import { copyAvatars, copyEmoji, copyUploads } from "./blobs.js";
import {
  exportRoot,
  messageFiles,
  readExportJson,
  table,
  type ExportTables,
  type ZulipRecord,
} from "./export-files.js";
import { renderer } from "./render-missing.js";
import { ImportRefused, at } from "./refusal.js";
import {
  requireInt,
  requireString,
  tableColumns,
  toRow,
  type Columns,
  type FieldSource,
  type Source,
} from "./row-mapping.js";
import { createMissingSystemGroups } from "./missing-system-groups.js";
import { prepareTarget } from "./target.js";

/** Where an import stands, for a progress bar or plain lines. */
export interface ImportProgress {
  stage: string;
  done: number;
  /** Null when the total is not known in advance. */
  total: number | null;
}

/** What an import brought in, printed by the CLI (and as JSON with --json). */
export interface ImportSummary {
  realm: { id: number; name: string; string_id: string };
  users: number;
  bots: number;
  channels: number;
  messages: number;
  reactions: number;
  uploads: number;
  emoji: number;
  user_groups: number;
  direct_message_groups: number;
}

export interface ImportZulipOptions {
  /** An unpacked Zulip export directory (realm.json, messages-*.json, uploads/…). */
  dir: string;
  /** The empty data directory the organization is created in. */
  dataDir: string;
  config: Config;
  onProgress?: (p: ImportProgress) => void;
}

/** Zulip's Recipient.type values. */
const PERSONAL = 1;
const STREAM = 2;
const DIRECT_MESSAGE_GROUP = 3;

/** Zulip stores these policies as integers (its enums), chatd by name. */
const TOPICS_POLICIES: Record<number, string> = {
  1: "inherit",
  2: "allow_empty_topic",
  3: "disable_empty_topic",
  4: "empty_topic_only",
};
const EDIT_HISTORY_VISIBILITY: Record<number, string> = { 1: "all", 2: "moves", 3: "none" };
const named = (names: Record<number, string>, key: string) => (r: ZulipRecord) =>
  typeof r[key] === "number" ? names[r[key]] : r[key];

/** Zulip's cross-realm bots, as chatd's per-realm system bots. */
const SYSTEM_BOT_NAMES: Record<string, string> = {
  "notification-bot": "Notification Bot",
  "welcome-bot": "Welcome Bot",
  emailgateway: "Email Gateway",
};

/**
 * Creates an organization from a Zulip-format export, keeping its ids, in an empty data
 * directory (or empty PostgreSQL database). On any failure the target is left as empty
 * as it was found.
 */
export async function importZulipExport(opts: ImportZulipOptions): Promise<ImportSummary> {
  const config = { ...opts.config, data_dir: opts.dataDir };
  const target = await prepareTarget(config);
  try {
    const dir = exportRoot(opts.dir);
    const knex = createKnex(config);
    try {
      await useSmallSqliteCache(knex);
      await migrateLatest(knex);
      return await new RealmImport(dir, config, knex, opts.onProgress ?? (() => undefined)).run();
    } finally {
      await knex.destroy();
    }
  } catch (err) {
    await target.undo();
    throw err;
  }
}

/** Rows per INSERT: within SQLite's 32,766 bound variables, at most 1,000. */
const rowsPerInsert = (columns: number) => Math.max(1, Math.min(1000, Math.floor(30_000 / columns)));

class RealmImport {
  private readonly columns = new Map<string, Columns>();
  private realmId = 0;
  private readonly userIds = new Set<number>();
  private readonly users = new Map<number, ZulipRecord>();
  private readonly recipients = new Map<number, { type: number; type_id: number }>();
  private readonly streamIds = new Set<number>();
  private readonly messageIds = new Set<number>();
  private readonly groupIds = new Set<number>();
  private readonly dmGroupMembers = new Map<number, number[]>();
  private readonly clients = new Map<number, string>();
  private counts = { messages: 0, reactions: 0, uploads: 0, emoji: 0 };

  constructor(
    private readonly dir: string,
    private readonly config: Config,
    private readonly knex: Knex,
    private readonly progress: (p: ImportProgress) => void,
  ) {}

  async run(): Promise<ImportSummary> {
    this.progress({ stage: "reading realm.json", done: 0, total: null });
    const realm = readExportJson(this.dir, "realm.json");
    const realmRecord = table(realm, "realm.json", "zerver_realm")[0];
    if (!realmRecord) throw new ImportRefused("realm.json: zerver_realm has no realm");
    this.realmId = requireInt(realmRecord, "id", { file: "realm.json", table: "zerver_realm", index: 0 });
    const store = new LocalBlobStore(uploadsDir(this.config));
    // Files first: attachments record their bytes' hashes, users their avatars.
    this.progress({ stage: "copying files", done: 0, total: null });
    const uploads = await copyUploads(this.dir, store);
    const avatars = await copyAvatars(this.dir, store);
    this.counts.emoji = await copyEmoji(this.dir, store, this.realmId);
    this.counts.uploads = uploads.size;
    const attachments = readOptional(this.dir, "attachment.json");
    for (const name of ["zerver_realm", "zerver_userprofile", "zerver_stream", "zerver_recipient"]) {
      if (!Array.isArray(realm[name])) throw new ImportRefused(`realm.json has no ${name} table`);
    }
    await this.knex.transaction(async (trx) => {
      await this.importRealm(trx, realm, realmRecord);
      await this.importUsers(trx, realm, avatars);
      await this.importGroups(trx, realm);
      // Zulip's people (not mirror dummies or cross-realm bots) join their role's group.
      const people = table(realm, "realm.json", "zerver_userprofile").map((u) => u.id as number);
      await createMissingSystemGroups(trx, this.realmId, people, Math.floor(Date.now() / 1000));
      await this.importChannels(trx, realm);
      await this.importSettingsTables(trx, realm);
      await this.importMessages(trx, realm);
      await this.importMessageExtras(trx, realm);
      await this.importAttachments(trx, attachments, uploads);
      await this.importDraftsAndScheduled(trx, realm);
      await this.fillDerived(trx);
    });
    const stored = table(realm, "realm.json", "zerver_userprofile");
    return {
      realm: {
        id: this.realmId,
        name: String(realmRecord.name),
        string_id: typeof realmRecord.string_id === "string" ? realmRecord.string_id : "",
      },
      users: stored.filter((u) => u.is_bot !== true).length,
      bots: stored.filter((u) => u.is_bot === true).length,
      channels: this.streamIds.size,
      messages: this.counts.messages,
      reactions: this.counts.reactions,
      uploads: this.counts.uploads,
      emoji: this.counts.emoji,
      user_groups: table(realm, "realm.json", "zerver_namedusergroup").length,
      direct_message_groups: this.dmGroupMembers.size,
    };
  }

  private async cols(trx: Knex, name: string): Promise<Columns> {
    let columns = this.columns.get(name);
    if (!columns) {
      columns = await tableColumns(trx, name);
      this.columns.set(name, columns);
    }
    return columns;
  }

  /** Inserts rows, grouped by the columns they set (the others keep their defaults). */
  private async insert(
    trx: Knex,
    name: string,
    rows: ReadonlyArray<Record<string, Knex.Value>>,
  ): Promise<void> {
    const groups = new Map<string, Array<Record<string, Knex.Value>>>();
    for (const row of rows) {
      const key = Object.keys(row).join(",");
      const group = groups.get(key) ?? [];
      group.push(row);
      groups.set(key, group);
    }
    for (const [key, group] of groups) {
      const columns = key.split(",");
      await bulkInsert(
        trx,
        quote(name),
        columns.map(quote),
        group.map((row) => columns.map((c) => row[c]!)),
        rowsPerInsert(columns.length),
      );
    }
  }

  /** A Zulip table into a chatd table, record by record (`keep` drops records, `check` refuses them). */
  private async copyTable(
    trx: Knex,
    data: ExportTables,
    file: string,
    from: string,
    to: string,
    mapping: Record<string, FieldSource>,
    check?: (record: ZulipRecord, src: Source) => boolean,
  ): Promise<number> {
    const columns = await this.cols(trx, to);
    const rows: Array<Record<string, Knex.Value>> = [];
    for (const [index, record] of table(data, file, from).entries()) {
      const src = { file, table: from, index };
      if (check && !check(record, src)) continue;
      rows.push(toRow(record, columns, src, { realm_id: () => this.realmId, ...mapping }));
    }
    await this.insert(trx, to, rows);
    return rows.length;
  }

  /** Refuses a record whose reference names nothing the export holds. */
  private ref(
    record: ZulipRecord,
    field: string,
    src: Source,
    known: ReadonlySet<number>,
    what: string,
  ): number {
    const id = requireInt(record, field, src);
    if (!known.has(id))
      throw new ImportRefused(
        `${at(src.file, src.table, src.index, field)} names ${what} ${id}, which the export does not hold`,
      );
    return id;
  }

  private optionalRef(
    record: ZulipRecord,
    field: string,
    src: Source,
    known: ReadonlySet<number>,
    what: string,
  ): void {
    if (record[field] !== null && record[field] !== undefined) this.ref(record, field, src, known, what);
  }

  private async importRealm(trx: Knex, realm: ExportTables, record: ZulipRecord): Promise<void> {
    for (const client of table(realm, "realm.json", "zerver_client")) {
      if (typeof client.id === "number" && typeof client.name === "string")
        this.clients.set(client.id, client.name);
    }
    const src = { file: "realm.json", table: "zerver_realm", index: 0 };
    requireString(record, "name", src);
    const row = toRow(record, await this.cols(trx, "realms"), src, {
      string_id: (r) => r.string_id ?? "",
      topics_policy: named(TOPICS_POLICIES, "topics_policy"),
      message_edit_history_visibility_policy: named(
        EDIT_HISTORY_VISIBILITY,
        "message_edit_history_visibility_policy",
      ),
    });
    await this.insert(trx, "realms", [row]);
  }

  private async importUsers(
    trx: Knex,
    realm: ExportTables,
    avatars: ReadonlyMap<number, string>,
  ): Promise<void> {
    const people = [
      ...table(realm, "realm.json", "zerver_userprofile").map((r, i) => ({
        r,
        i,
        from: "zerver_userprofile",
      })),
      ...table(realm, "realm.json", "zerver_userprofile_mirrordummy").map((r, i) => ({
        r,
        i,
        from: "zerver_userprofile_mirrordummy",
      })),
    ];
    for (const { r, i, from } of people) {
      const src = { file: "realm.json", table: from, index: i };
      const id = requireInt(r, "id", src);
      requireString(r, "full_name", src);
      if (typeof r.email !== "string" && typeof r.delivery_email !== "string")
        throw new ImportRefused(`${at(src.file, from, i, "email")} is not a string`);
      if (this.userIds.has(id)) throw new ImportRefused(`${at(src.file, from, i, "id")} repeats user ${id}`);
      this.userIds.add(id);
      this.users.set(id, r);
    }
    const columns = await this.cols(trx, "users");
    const rows = people.map(({ r, i, from }) => {
      const src = { file: "realm.json", table: from, index: i };
      this.optionalRef(r, "bot_owner", src, this.userIds, "user");
      const avatar = avatars.get(r.id as number);
      return toRow(r, columns, src, {
        realm_id: () => this.realmId,
        email: (u) => u.email ?? u.delivery_email,
        delivery_email: (u) => u.delivery_email ?? u.email,
        // Imported people have no password: they set one through a reset link.
        password_hash: () => null,
        // Owners are set once every user exists (a bot may come before its owner).
        bot_owner_id: () => null,
        is_system_bot: () => false,
        avatar_source: (u) => (u.avatar_source === "U" && !avatar ? "G" : u.avatar_source),
        avatar_file: () => avatar ?? null,
      });
    });
    // Zulip's cross-realm bots (Notification Bot…) sent some messages: chatd's per-realm system bots, same ids.
    const host = emailHost(this.config);
    for (const [index, bot] of table(realm, "realm.json", "zerver_userprofile_crossrealm").entries()) {
      const src = { file: "realm.json", table: "zerver_userprofile_crossrealm", index };
      const id = requireInt(bot, "id", src);
      if (this.userIds.has(id)) continue;
      const localPart = requireString(bot, "email", src).split("@")[0]!;
      this.userIds.add(id);
      rows.push({
        id,
        realm_id: this.realmId,
        email: `${localPart}@${host}`,
        delivery_email: `${localPart}@${host}`,
        full_name: SYSTEM_BOT_NAMES[localPart] ?? localPart,
        is_bot: true,
        bot_type: 1,
        is_system_bot: true,
        date_joined: Math.floor(Number(table(realm, "realm.json", "zerver_realm")[0]!.date_created ?? 0)),
      });
    }
    await this.insert(trx, "users", rows);
    for (const [id, r] of this.users) {
      if (typeof r.bot_owner === "number")
        await trx("users").where({ id }).update({ bot_owner_id: r.bot_owner });
    }
  }

  private async importGroups(trx: Knex, realm: ExportTables): Promise<void> {
    const named = new Map<number, ZulipRecord>();
    for (const [index, g] of table(realm, "realm.json", "zerver_namedusergroup").entries()) {
      named.set(
        requireInt(g, "usergroup_ptr" in g ? "usergroup_ptr" : "id", {
          file: "realm.json",
          table: "zerver_namedusergroup",
          index,
        }),
        g,
      );
    }
    const groups = table(realm, "realm.json", "zerver_usergroup");
    for (const [index, g] of groups.entries())
      this.groupIds.add(requireInt(g, "id", { file: "realm.json", table: "zerver_usergroup", index }));
    const columns = await this.cols(trx, "user_groups");
    const rows = groups.map((g, index) => {
      const src = { file: "realm.json", table: "zerver_usergroup", index };
      const merged = { ...g, ...named.get(g.id as number), id: g.id };
      this.optionalRef(merged, "creator", src, this.userIds, "user");
      // An anonymous group (a setting's explicit value) has no name.
      return toRow(merged, columns, src, { realm_id: () => this.realmId, name: (r) => r.name ?? null });
    });
    await this.insert(trx, "user_groups", rows);
    const members: number[][] = [];
    for (const [index, m] of table(realm, "realm.json", "zerver_usergroupmembership").entries()) {
      const src = { file: "realm.json", table: "zerver_usergroupmembership", index };
      members.push([
        this.ref(m, "user_group", src, this.groupIds, "user group"),
        this.ref(m, "user_profile", src, this.userIds, "user"),
      ]);
    }
    await bulkInsertIntegers(trx, "user_group_members", ["group_id", "user_id"], dedupe(members));
    const subgroups: number[][] = [];
    for (const [index, m] of table(realm, "realm.json", "zerver_groupgroupmembership").entries()) {
      const src = { file: "realm.json", table: "zerver_groupgroupmembership", index };
      subgroups.push([
        this.ref(m, "supergroup", src, this.groupIds, "user group"),
        this.ref(m, "subgroup", src, this.groupIds, "user group"),
      ]);
    }
    await bulkInsertIntegers(
      trx,
      "user_group_subgroups",
      ["supergroup_id", "subgroup_id"],
      dedupe(subgroups),
    );
  }

  private async importChannels(trx: Knex, realm: ExportTables): Promise<void> {
    const file = "realm.json";
    for (const [index, r] of table(realm, file, "zerver_recipient").entries()) {
      const src = { file, table: "zerver_recipient", index };
      this.recipients.set(requireInt(r, "id", src), {
        type: requireInt(r, "type", src),
        type_id: requireInt(r, "type_id", src),
      });
    }
    await this.copyTable(trx, realm, file, "zerver_recipient", "recipients", {});
    await this.copyTable(trx, realm, file, "zerver_channelfolder", "channel_folders", {});
    for (const [index, s] of table(realm, file, "zerver_stream").entries()) {
      const src = { file, table: "zerver_stream", index };
      this.streamIds.add(requireInt(s, "id", src));
      requireString(s, "name", src);
    }
    const recipientOfStream = new Map<number, number>();
    for (const [id, r] of this.recipients) if (r.type === STREAM) recipientOfStream.set(r.type_id, id);
    await this.copyTable(trx, realm, file, "zerver_stream", "streams", {
      name_key: (s) => (s.name as string).toLowerCase(),
      is_archived: (s) => s.is_archived ?? s.deactivated,
      topics_policy: named(TOPICS_POLICIES, "topics_policy"),
      recipient_id: (s) => s.recipient ?? recipientOfStream.get(s.id as number) ?? null,
    });
    // Subscriptions to channels are chatd's subscriptions; to a direct-message group, its membership.
    const subscriptions: ZulipRecord[] = [];
    for (const [index, sub] of table(realm, file, "zerver_subscription").entries()) {
      const src = { file, table: "zerver_subscription", index };
      const user = this.ref(sub, "user_profile", src, this.userIds, "user");
      const recipientId = this.ref(sub, "recipient", src, new Set(this.recipients.keys()), "recipient");
      const recipient = this.recipients.get(recipientId)!;
      if (recipient.type === STREAM)
        subscriptions.push({ ...sub, stream: recipient.type_id, chatd_index: index });
      if (recipient.type === DIRECT_MESSAGE_GROUP) {
        this.dmGroupMembers.set(recipient.type_id, [
          ...(this.dmGroupMembers.get(recipient.type_id) ?? []),
          user,
        ]);
      }
    }
    const columns = await this.cols(trx, "subscriptions");
    await this.insert(
      trx,
      "subscriptions",
      subscriptions.map((sub) =>
        toRow(
          sub,
          columns,
          { file, table: "zerver_subscription", index: sub.chatd_index as number },
          {
            user_id: "user_profile",
            is_user_active: (s) =>
              s.is_user_active ?? this.users.get(s.user_profile as number)?.is_active ?? true,
          },
        ),
      ),
    );
    const dmGroups =
      realm.zerver_directmessagegroup !== undefined ? "zerver_directmessagegroup" : "zerver_huddle";
    await this.copyTable(trx, realm, file, dmGroups, "direct_message_groups", {
      user_ids_key: (g) =>
        [...new Set(this.dmGroupMembers.get(g.id as number) ?? [])].sort((a, b) => a - b).join(","),
      group_size: (g) => g.group_size ?? new Set(this.dmGroupMembers.get(g.id as number) ?? []).size,
    });
    await this.copyTable(trx, realm, file, "zerver_defaultstream", "default_streams", {}, (d, src) => {
      this.ref(d, "stream", src, this.streamIds, "channel");
      return true;
    });
  }

  /** Per-realm and per-user settings tables, read whole from realm.json. */
  private async importSettingsTables(trx: Knex, realm: ExportTables): Promise<void> {
    const file = "realm.json";
    const defaults = table(realm, file, "zerver_realmuserdefault");
    if (defaults.length > 0)
      await this.copyTable(
        trx,
        { zerver_realmuserdefault: defaults.slice(0, 1) },
        file,
        "zerver_realmuserdefault",
        "realm_user_settings_defaults",
        {},
      );
    else await trx("realm_user_settings_defaults").insert({ realm_id: this.realmId });
    const byUser = (field: string) => (r: ZulipRecord, src: Source) => {
      this.ref(r, field, src, this.userIds, "user");
      return true;
    };
    await this.copyTable(trx, realm, file, "zerver_customprofilefield", "custom_profile_fields", {});
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_customprofilefieldvalue",
      "custom_profile_field_values",
      { user_id: "user_profile", field_id: "field" },
      byUser("user_profile"),
    );
    await this.copyTable(trx, realm, file, "zerver_realmdomain", "realm_domains", {});
    await this.copyTable(trx, realm, file, "zerver_realmemoji", "realm_emoji", {});
    await this.copyTable(trx, realm, file, "zerver_realmfilter", "linkifiers", {});
    await this.copyTable(trx, realm, file, "zerver_realmplayground", "realm_playgrounds", {});
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_usertopic",
      "user_topics",
      {
        user_id: "user_profile",
        topic_key: (t) => (typeof t.topic_name === "string" ? t.topic_name : "").toLowerCase(),
      },
      byUser("user_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_muteduser",
      "muted_users",
      { user_id: "user_profile" },
      byUser("user_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_alertword",
      "alert_words",
      { user_id: "user_profile" },
      byUser("user_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_service",
      "bot_services",
      {
        bot_user_id: "user_profile",
        // Zulip regenerates service tokens on import; an export may also leave them out.
        token: (s) =>
          typeof s.token === "string" && s.token !== "" ? s.token : randomBytes(16).toString("hex"),
      },
      byUser("user_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_botconfigdata",
      "bot_config_data",
      { bot_user_id: "bot_profile" },
      byUser("bot_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_botstoragedata",
      "bot_storage",
      { bot_user_id: "bot_profile" },
      byUser("bot_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_userstatus",
      "user_status",
      { user_id: "user_profile" },
      byUser("user_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_savedsnippet",
      "saved_snippets",
      { user_id: "user_profile" },
      byUser("user_profile"),
    );
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_navigationview",
      "navigation_views",
      { user_id: "user" },
      byUser("user"),
    );
  }

  private async importMessages(trx: Knex, realm: ExportTables): Promise<void> {
    const files = messageFiles(this.dir);
    const columns = await this.cols(trx, "messages");
    const recipientIds = new Set(this.recipients.keys());
    const render = renderer(realm, this.config);
    for (const [n, file] of files.entries()) {
      this.progress({ stage: "messages", done: n, total: files.length });
      const data = readExportJson(this.dir, file);
      const rows: Array<Record<string, Knex.Value>> = [];
      const docs: Array<{ id: number; topic: string; text: string }> = [];
      for (const [index, m] of table(data, file, "zerver_message").entries()) {
        const src = { file, table: "zerver_message", index };
        const id = requireInt(m, "id", src);
        if (this.messageIds.has(id))
          throw new ImportRefused(`${at(file, "zerver_message", index, "id")} repeats message ${id}`);
        this.ref(m, "sender", src, this.userIds, "user");
        const recipient = this.recipients.get(this.ref(m, "recipient", src, recipientIds, "recipient"))!;
        const content = requireString(m, "content", src);
        const topic = typeof m.subject === "string" ? m.subject : typeof m.topic === "string" ? m.topic : "";
        const rendered =
          typeof m.rendered_content === "string" ? m.rendered_content : render(content, m.sender as number);
        const row = toRow(m, columns, src, {
          realm_id: () => this.realmId,
          stream_id: () => (recipient.type === STREAM ? recipient.type_id : null),
          topic: () => topic,
          topic_key: () => topic.toLowerCase(),
          rendered_content: () => rendered,
          sending_client: (r) =>
            typeof r.sending_client === "number"
              ? (this.clients.get(r.sending_client) ?? "")
              : r.sending_client,
          is_me_message: () => isMeMessage(content),
          last_moved_time: (r) => lastMovedTime(r.edit_history),
        });
        this.messageIds.add(id);
        rows.push(row);
        docs.push({ id, topic, text: htmlToText(rendered) });
      }
      await this.insert(trx, "messages", rows);
      const userMessages: number[][] = [];
      for (const [index, um] of table(data, file, "zerver_usermessage").entries()) {
        const src = { file, table: "zerver_usermessage", index };
        userMessages.push([
          this.ref(um, "user_profile", src, this.userIds, "user"),
          this.ref(um, "message", src, this.messageIds, "message"),
          flagBits(um, src),
        ]);
      }
      await bulkInsertIntegers(
        trx,
        "user_messages",
        ["user_id", "message_id", "flags"],
        dedupe(userMessages),
      );
      await indexMessages(trx, docs);
      this.counts.messages += rows.length;
    }
    this.progress({ stage: "messages", done: files.length, total: files.length });
  }

  private async importMessageExtras(trx: Knex, realm: ExportTables): Promise<void> {
    const file = "realm.json";
    const seen = new Set<string>();
    this.counts.reactions = await this.copyTable(
      trx,
      realm,
      file,
      "zerver_reaction",
      "reactions",
      { user_id: "user_profile" },
      (r, src) => {
        this.ref(r, "message", src, this.messageIds, "message");
        this.ref(r, "user_profile", src, this.userIds, "user");
        const key = `${String(r.message)}:${String(r.user_profile)}:${String(r.reaction_type)}:${String(r.emoji_code)}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      },
    );
    await this.copyTable(trx, realm, file, "zerver_submessage", "submessages", {}, (s, src) => {
      this.ref(s, "message", src, this.messageIds, "message");
      return true;
    });
  }

  private async importAttachments(
    trx: Knex,
    data: ExportTables,
    uploads: ReadonlyMap<string, { sha256: string; size: number }>,
  ): Promise<void> {
    const file = "attachment.json";
    const links: number[][] = [];
    const idByPath = new Map<string, number>();
    await this.copyTable(
      trx,
      data,
      file,
      "zerver_attachment",
      "attachments",
      {
        sha256: (a) => uploads.get(a.path_id as string)?.sha256,
        size: (a) => a.size ?? uploads.get(a.path_id as string)?.size,
        content_type: (a) => a.content_type ?? "application/octet-stream",
      },
      (a, src) => {
        const id = requireInt(a, "id", src);
        const pathId = requireString(a, "path_id", src);
        this.ref(a, "owner", src, this.userIds, "user");
        if (!uploads.has(pathId))
          throw new ImportRefused(
            `${at(file, "zerver_attachment", src.index, "path_id")} names ${pathId}, which uploads/ does not hold`,
          );
        idByPath.set(pathId, id);
        const messages = Array.isArray(a.messages) ? a.messages : [];
        for (const m of messages) if (typeof m === "number" && this.messageIds.has(m)) links.push([id, m]);
        return true;
      },
    );
    await bulkInsertIntegers(trx, "attachment_messages", ["attachment_id", "message_id"], dedupe(links));
    await this.copyTable(
      trx,
      data,
      file,
      "zerver_imageattachment",
      "image_attachments",
      {
        attachment_id: (i) => idByPath.get(i.path_id as string),
        // Thumbnails are not in an export: the server makes them again.
        thumbnail_metadata: () => "[]",
      },
      (i) => idByPath.has(i.path_id as string),
    );
  }

  private async importDraftsAndScheduled(trx: Knex, realm: ExportTables): Promise<void> {
    const file = "realm.json";
    const address = (recipientId: unknown, self: number): { type: string; to: number[] } => {
      const r = typeof recipientId === "number" ? this.recipients.get(recipientId) : undefined;
      if (!r) return { type: "", to: [] };
      if (r.type === STREAM) return { type: "stream", to: [r.type_id] };
      if (r.type === PERSONAL) return { type: "private", to: [r.type_id] };
      return {
        type: "private",
        to: (this.dmGroupMembers.get(r.type_id) ?? []).filter((id) => id !== self).sort((a, b) => a - b),
      };
    };
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_draft",
      "drafts",
      {
        user_id: "user_profile",
        type: (d) => address(d.recipient, d.user_profile as number).type,
        to_ids: (d) => JSON.stringify(address(d.recipient, d.user_profile as number).to),
      },
      (d, src) => {
        this.ref(d, "user_profile", src, this.userIds, "user");
        return true;
      },
    );
    const participants = (recipientId: unknown, sender: number): number[] => {
      const r = this.recipients.get(recipientId as number);
      if (!r || r.type === STREAM) return [];
      if (r.type === PERSONAL) return [...new Set([sender, r.type_id])].sort((a, b) => a - b);
      return [...new Set(this.dmGroupMembers.get(r.type_id) ?? [])].sort((a, b) => a - b);
    };
    await this.copyTable(
      trx,
      realm,
      file,
      "zerver_scheduledmessage",
      "scheduled_messages",
      {
        recipient_type: (s) =>
          this.recipients.get(s.recipient as number)?.type === STREAM ? "stream" : "private",
        stream_id: (s) =>
          this.recipients.get(s.recipient as number)?.type === STREAM
            ? this.recipients.get(s.recipient as number)!.type_id
            : null,
        to_user_ids: (s) =>
          this.recipients.get(s.recipient as number)?.type === STREAM
            ? null
            : JSON.stringify(participants(s.recipient, s.sender as number)),
        topic: (s) => s.subject ?? s.topic ?? "",
        rendered_content: (s) => s.rendered_content ?? "",
        sending_client: (s) =>
          typeof s.sending_client === "number"
            ? (this.clients.get(s.sending_client) ?? "")
            : s.sending_client,
        delivered_message_id: (s) =>
          typeof s.delivered_message === "number" && this.messageIds.has(s.delivered_message)
            ? s.delivered_message
            : null,
      },
      (s, src) => {
        this.ref(s, "sender", src, this.userIds, "user");
        this.ref(s, "recipient", src, new Set(this.recipients.keys()), "recipient");
        return true;
      },
    );
  }

  /** What chatd derives and an export does not carry. */
  private async fillDerived(trx: Knex): Promise<void> {
    this.progress({ stage: "finishing", done: 0, total: null });
    await trx.raw(
      `UPDATE streams SET first_message_id = (SELECT min(m.id) FROM messages m WHERE m.stream_id = streams.id)
       WHERE first_message_id IS NULL`,
    );
    await this.fillGroupSettings(trx);
    if (isPostgres(trx)) await resetSequences(trx as Knex.Transaction);
  }

  /**
   * Permission settings an export leaves empty (older Zulip versions, converters) take
   * chatd's defaults; one defaulting to its creator takes role:nobody (administrators
   * keep their rights through their role).
   */
  private async fillGroupSettings(trx: Knex): Promise<void> {
    const system = new Map<string, number>();
    const rows = await trx("user_groups")
      .where({ is_system_group: true })
      .select<Array<{ id: number; name: string }>>("id", "name");
    for (const g of rows) system.set(g.name, g.id);
    const fill = async (
      name: string,
      settings: Record<string, { defaultGroupName: string }>,
      where: Record<string, unknown> = {},
    ) => {
      for (const [setting, spec] of Object.entries(settings)) {
        const group = system.get(spec.defaultGroupName === "creator" ? "role:nobody" : spec.defaultGroupName);
        if (group !== undefined)
          await trx(name)
            .where(where)
            .whereNull(`${setting}_id`)
            .update({ [`${setting}_id`]: group });
      }
    };
    await fill("realms", REALM_GROUP_SETTINGS);
    await fill("streams", CHANNEL_GROUP_SETTINGS);
    await fill("user_groups", USER_GROUP_SETTINGS, { is_system_group: false });
    const nobody = system.get("role:nobody");
    if (nobody !== undefined) {
      const columns = Object.keys(USER_GROUP_SETTINGS).map((s) => `${s}_id`);
      for (const column of columns)
        await trx("user_groups")
          .where({ is_system_group: true })
          .whereNull(column)
          .update({ [column]: nobody });
    }
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function readOptional(dir: string, name: string): ExportTables {
  try {
    return readExportJson(dir, name);
  } catch (err) {
    if (err instanceof ImportRefused && err.message.includes("missing")) return {};
    throw err;
  }
}

/** Rows keyed by their values, once each (an export may repeat a link). */
function dedupe(rows: number[][]): number[][] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = row.join(",");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Zulip's UserMessage flags: the bit field `flags_mask` as export.py writes it (or `flags`). */
function flagBits(um: ZulipRecord, src: Source): number {
  const value = um.flags_mask ?? um.flags ?? 0;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ImportRefused(`${at(src.file, src.table, src.index, "flags_mask")} is not a flag bit field`);
  }
  return value;
}

/** The newest move in Zulip's edit_history (a JSON list, newest first), in whole seconds. */
function lastMovedTime(history: unknown): number | null {
  if (typeof history !== "string") return null;
  try {
    const entries = JSON.parse(history) as Array<Record<string, unknown>>;
    const moves = entries
      .filter((e) => "prev_topic" in e || "prev_stream" in e)
      .map((e) => Number(e.timestamp));
    return moves.length > 0 ? Math.floor(Math.max(...moves)) : null;
  } catch {
    return null;
  }
}
