import { existsSync, readdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { Command } from "commander";
import { realmUrl } from "../../config.js";
import { configFor } from "../context.js";
import { chatdCommand } from "../next-steps.js";
import { CliError, printJson, printLine } from "../output.js";
import { importProgress } from "../import/progress.js";

// Loaded when the command runs: a server never needs the importer.
const slackImporter = () => import("../import/slack/import-slack.js");

/** The data directory must not hold an organization yet (missing or empty). */
function requireEmptyDataDir(dir: string): void {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new CliError(`the data directory ${dir} is not empty: import into a new, empty data directory`);
  }
}

export const importSlackCommand = new Command("slack")
  .description(
    "create the organization from a Slack export zip (users, channels, DMs, threads, reactions, files in the zip) in an empty data directory",
  )
  .argument("<path.zip>", "the export zip Slack (or slackdump / slack-advanced-exporter) wrote")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print the summary as JSON")
  .action(async (path: string, opts: { json?: boolean }, cmd: Command) => {
    const config = configFor(cmd);
    const zipPath = resolve(path);
    if (!existsSync(zipPath) || !statSync(zipPath).isFile()) throw new CliError(`${zipPath}: no such file`);
    requireEmptyDataDir(config.data_dir);
    const progress = importProgress();
    let summary;
    try {
      summary = await (
        await slackImporter()
      ).importSlackExport({ zipPath, config, onProgress: (p) => progress.update(p) });
    } finally {
      progress.finish();
    }
    if (opts.json) {
      printJson(summary);
      return;
    }
    printLine(`Imported the organization ${summary.realm.name} from Slack:`);
    printLine(
      `  ${summary.users} user(s), ${summary.bots} bot(s), ${summary.channels} channel(s), ${summary.messages} message(s), ${summary.reactions} reaction(s), ${summary.uploads} upload(s)`,
    );
    printLine(`  Realm URL: ${realmUrl(config)}`);
    printLine("");
    printLine('Imported users have no password: each sets one through "Forgot password" on the login page,');
    printLine(
      `or an administrator hands out links: ${chatdCommand(config)} user reset-password --email EMAIL`,
    );
  });
