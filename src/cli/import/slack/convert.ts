import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { convertConversations } from "./channels.js";
import { SlackImportError } from "./errors.js";
import { FileConverter, type UploadLimits } from "./files.js";
import type { MarkupContext } from "./markup.js";
import { convertMessages } from "./messages.js";
import { CLIENTS, RealmTables } from "./realm-tables.js";
import { SlackZip } from "./slack-zip.js";
import { convertUsers } from "./users.js";

export interface SlackConversion {
  realmName: string;
  users: number;
  channels: number;
  messages: number;
  uploads: number;
}

export interface ConvertProgress {
  stage: string;
  done: number;
  total: number | null;
}

/** The realm id the converted export uses (chatd keeps an export's ids). */
const REALM_ID = 1;

/** "Acme Slack export Jan 1 2024 - Dec 31 2024.zip" -> "Acme", as Slack names its exports. */
export function workspaceName(zipPath: string): string {
  const match = /^(.+?) Slack export\b/i.exec(basename(zipPath));
  return match ? match[1]!.trim() : "Imported from Slack";
}

/**
 * A Slack export zip -> a Zulip-format export in `outDir` (realm.json, messages-NNNNNN.json,
 * attachment.json, uploads/ with records.json, empty avatars/ and emoji/), as Zulip's
 * do_convert_zipfile, offline: only what the zip holds (no avatars or custom emoji, which
 * Zulip's converter downloads through Slack's API).
 */
export async function convertSlackExport(opts: {
  zipPath: string;
  outDir: string;
  /** The host of the server's URL, for the addresses of users the export has none for. */
  domain: string;
  now?: number;
  onProgress?: (p: ConvertProgress) => void;
  uploadLimits?: UploadLimits;
}): Promise<SlackConversion> {
  const zip = await SlackZip.open(opts.zipPath);
  try {
    if (!zip.has("users.json")) {
      throw new SlackImportError(`${opts.zipPath} is not a Slack export: it has no users.json`);
    }
    if (!zip.has("channels.json")) {
      throw new SlackImportError(`${opts.zipPath} is not a Slack export: it has no channels.json`);
    }
    const optional = async (name: string) => (zip.has(name) ? zip.readJson(name) : undefined);
    const now = opts.now ?? Date.now() / 1000;
    const tables = new RealmTables();
    opts.onProgress?.({ stage: "converting users and channels", done: 0, total: null });
    const users = convertUsers(await zip.readJson("users.json"), tables, REALM_ID, opts.domain, now);
    const conversations = convertConversations(
      {
        channels: await zip.readJson("channels.json"),
        groups: await optional("groups.json"),
        mpims: await optional("mpims.json"),
        dms: await optional("dms.json"),
      },
      tables,
      users,
      REALM_ID,
    );

    // @**Full Name**, or @**Full Name|id** when two users share the name.
    const nameCount = new Map<string, number>();
    for (const name of users.nameOf.values()) nameCount.set(name, (nameCount.get(name) ?? 0) + 1);
    const markup: MarkupContext = { users: new Map(), channels: conversations.channelNames };
    for (const [slackId, id] of users.idOf) {
      const name = users.nameOf.get(id)!;
      markup.users.set(slackId, { id, mention: nameCount.get(name)! > 1 ? `${name}|${id}` : name });
    }

    mkdirSync(join(opts.outDir, "uploads"), { recursive: true });
    const files = new FileConverter(zip, opts.outDir, REALM_ID, opts.uploadLimits);
    const stats = await convertMessages({
      zip,
      outDir: opts.outDir,
      realmId: REALM_ID,
      tables,
      users,
      conversations,
      markup,
      files,
      onDay: (done, total) => opts.onProgress?.({ stage: "converting messages", done, total }),
    });

    const active = new Map(tables.userprofile.map((u) => [u.id as number, u.is_active as boolean]));
    for (const sub of tables.subscription)
      sub.is_user_active = active.get(sub.user_profile as number) ?? true;
    const realmName = workspaceName(opts.zipPath);
    const realm = {
      zerver_realm: [
        {
          id: REALM_ID,
          name: realmName,
          string_id: "",
          description: "Organization imported from Slack!",
          date_created: now,
          new_stream_announcements_stream: conversations.announcementsStreamId,
          zulip_update_announcements_stream: conversations.announcementsStreamId,
        },
      ],
      zerver_client: CLIENTS,
      zerver_userprofile: tables.userprofile,
      zerver_stream: tables.stream,
      zerver_huddle: tables.huddle,
      zerver_recipient: tables.recipient,
      zerver_subscription: tables.subscription,
      zerver_defaultstream: tables.defaultstream,
      zerver_reaction: tables.reaction,
      zerver_realmemoji: [],
      zerver_customprofilefield: [],
      zerver_customprofilefieldvalue: [],
      zerver_realmdomain: [],
      zerver_userpresence: [],
      zerver_useractivity: [],
      zerver_realmfilter: [],
      zerver_realmplayground: [],
      import_source: "slack",
    };
    writeFileSync(join(opts.outDir, "realm.json"), JSON.stringify(realm));
    writeFileSync(
      join(opts.outDir, "attachment.json"),
      JSON.stringify({ zerver_attachment: files.attachments }),
    );
    writeFileSync(join(opts.outDir, "uploads", "records.json"), JSON.stringify(files.uploadRecords));
    for (const dir of ["avatars", "emoji"]) {
      mkdirSync(join(opts.outDir, dir), { recursive: true });
      writeFileSync(join(opts.outDir, dir, "records.json"), "[]");
    }
    return {
      realmName,
      users: tables.userprofile.length,
      channels: tables.stream.length,
      messages: stats.messages,
      uploads: files.attachments.length,
    };
  } finally {
    zip.close();
  }
}
