import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Knex } from "knex";
import * as tar from "tar";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../../db/private-files.js";
import type { BlobStore } from "../storage/index.js";
import { JsonTablesFile } from "./json-file.js";
import { writeMessageFiles } from "./message-files.js";
import { writeRealmTables } from "./realm-tables.js";
import { booleanColumns, convertRow, pages } from "./rows.js";
import { exportScope, type ExportType } from "./scope.js";
import { writeStoredFiles } from "./stored-files.js";

export interface ExportOptions {
  /** A consistent, read-only view of the database (a snapshot file or a repeatable-read transaction). */
  knex: Knex;
  store: BlobStore;
  realmId: number;
  exportType: ExportType;
  /** The .tar.gz to write; it must not exist. Its name less .tar.gz names the archive's directory. */
  output: string;
  /** Host for made-up addresses (members who show their email to nobody). */
  host: string;
}

export interface ExportSummary {
  output: string;
  export_type: ExportType;
  users: number;
  bots: number;
  channels: number;
  messages: number;
  message_files: number;
  reactions: number;
  uploads: number;
  avatars: number;
  emoji: number;
  /** Stored files the database names that were gone (deleted as the export ran). */
  missing_files: string[];
}

/** The archive's directory name: the output's file name less .tar.gz. */
export const archiveDirName = (output: string) =>
  basename(output).replace(/\.tar\.gz$|\.tgz$/, "") || "zulip-export";

/**
 * Writes the realm in Zulip's export format (zerver/lib/export.py's do_export_realm) into a
 * private temporary directory beside the output, then packs it as a .tar.gz (0600) whose
 * one top-level directory holds realm.json, messages-NNNNNN.json, attachment.json and
 * uploads/, avatars/, emoji/. Everything is streamed: a page of rows at a time.
 */
export async function writeZulipExport(opts: ExportOptions): Promise<ExportSummary> {
  const { knex, realmId } = opts;
  const work = await mkdtemp(join(dirname(opts.output), `.${archiveDirName(opts.output)}.`));
  try {
    const dir = join(work, archiveDirName(opts.output));
    await mkdir(dir, { mode: PRIVATE_DIR_MODE });
    const scope = await exportScope(knex, realmId, opts.exportType);
    const withUserMessages = (userId: number) => scope.exportType !== 2 || scope.consenting.has(userId);
    const messages = await writeMessageFiles(knex, dir, scope, withUserMessages);

    const realmFile = new JsonTablesFile(join(dir, "realm.json"));
    const userState = await writeRealmTables({ knex, scope, host: opts.host }, realmFile, messages.clients);
    // zerver_reaction is in realm.json, as Zulip writes it (do_export_realm adds it late).
    const reactionBooleans = await booleanColumns(knex, "reactions");
    await realmFile.table("zerver_reaction");
    let reactions = 0;
    for await (const page of pages(
      () =>
        scope.messages(knex("reactions as r").join("messages as m", "m.id", "r.message_id")).select("r.*"),
      "r.id",
    )) {
      for (const row of page) {
        await realmFile.row(
          convertRow(
            row,
            { foreignKeys: ["message_id"], rename: { user_id: "user_profile" } },
            reactionBooleans,
          ),
        );
        reactions++;
      }
    }
    // zerver_submessage (widgets' state): Zulip's export leaves it out; chatd keeps it.
    await realmFile.table("zerver_submessage");
    for await (const page of pages(
      () =>
        scope.messages(knex("submessages as s").join("messages as m", "m.id", "s.message_id")).select("s.*"),
      "s.id",
    )) {
      for (const row of page)
        await realmFile.row(convertRow(row, { foreignKeys: ["message_id", "sender_id"] }, new Set()));
    }
    await realmFile.close();

    const files = await writeStoredFiles(knex, opts.store, dir, scope);
    const channels = Number(
      ((await knex("streams").where({ realm_id: realmId }).count({ n: "*" }).first()) as { n: unknown }).n,
    );

    const out = createWriteStream(opts.output, { flags: "wx", mode: PRIVATE_FILE_MODE });
    try {
      await pipeline(tar.c({ gzip: true, cwd: work, portable: true }, [basename(dir)]), out);
    } catch (err) {
      await rm(opts.output, { force: true });
      throw err;
    }
    return {
      output: opts.output,
      export_type: opts.exportType,
      users: userState.users,
      bots: userState.bots,
      channels,
      messages: messages.messages,
      message_files: messages.files,
      reactions,
      uploads: files.uploads,
      avatars: files.avatars,
      emoji: files.emoji,
      missing_files: files.missing,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
