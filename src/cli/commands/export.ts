import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Command } from "commander";
import { emailHost } from "../../config.js";
import { uploadsDir } from "../../lib/storage/paths.js";
import { configFor, withApp } from "../context.js";
import { requireRealm } from "../realm.js";
import { failureWhile } from "../failures.js";
import { CliError, printJson, printLine } from "../output.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const zulipExport = () => import("../../lib/zulip-export/write-export.js");
const readSnapshot = () => import("../../db/read-snapshot.js");
const localStorage = () => import("../../lib/storage/local.js");

interface ExportOptions {
  output: string;
  public?: boolean;
  consent?: boolean;
  json?: boolean;
}

/**
 * The realm in Zulip's export format, from a consistent snapshot while the server runs
 * (as `chatd backup`), streamed a page of rows at a time.
 */
export const exportCommand = new Command("export")
  .description(
    "write the organization to FILE.tar.gz in Zulip's export format (realm.json, messages-NNNNNN.json, uploads, avatars, custom emoji; no passwords or API keys), for `chatd import zulip` or a Zulip server (safe while the server runs). By default a full export with every member's private data and messages, as Zulip's `manage.py export`",
  )
  .requiredOption("--output <file>", "the .tar.gz to write (must not exist; written readable by you only)")
  .option(
    "--public",
    "a public export (Zulip's export type 1): public channels only, no private data, DMs or private channels",
  )
  .option(
    "--consent",
    "a full export with member consent (Zulip's export type 2): private data and messages only of members who allow it",
  )
  .option("--no-input", "never prompt (this command asks nothing)")
  .option(
    "--json",
    "print the summary as JSON: {output, users, bots, channels, messages, reactions, uploads, avatars, emoji, …}",
  )
  .action(async (opts: ExportOptions, cmd: Command) => {
    if (opts.public && opts.consent) throw new CliError("--public and --consent cannot be combined");
    const config = configFor(cmd);
    const output = resolve(opts.output);
    if (existsSync(output)) throw new CliError(`${output} already exists`);
    if (!existsSync(dirname(output))) throw new CliError(`${dirname(output)} does not exist`);
    const realm = await withApp(config, requireRealm, { doing: "exporting" });
    const { writeZulipExport } = await zulipExport();
    const exportType = opts.public ? 1 : opts.consent ? 2 : 3;
    const store = new (await localStorage()).LocalBlobStore(uploadsDir(config));
    // Stored files named by the snapshot are kept until the export has copied them.
    const resume = await store.pauseDeletions();
    let summary;
    try {
      const snapshot = await (await readSnapshot()).openReadSnapshot(config, dirname(output));
      try {
        summary = await writeZulipExport({
          knex: snapshot.knex,
          store,
          realmId: realm.id,
          exportType,
          output,
          host: emailHost(config),
        });
      } finally {
        await snapshot.close();
      }
    } catch (err) {
      if (err instanceof CliError) throw err;
      throw failureWhile("exporting", err);
    } finally {
      await resume();
    }
    if (summary.missing_files.length > 0) {
      process.stderr.write(
        `warning: ${summary.missing_files.length} stored file(s) were deleted as the export began\n`,
      );
    }
    if (opts.json) return printJson(summary);
    printLine(output);
    printLine(
      `${summary.users} users, ${summary.bots} bots, ${summary.channels} channels, ${summary.messages} messages, ${summary.reactions} reactions, ${summary.uploads} uploads, ${summary.emoji} custom emoji files`,
    );
  });
