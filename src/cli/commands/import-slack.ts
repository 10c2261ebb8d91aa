import { existsSync, readdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { Command } from "commander";
import { realmUrl, SETTINGS_FILE_NAME } from "../../config.js";
import { configFor } from "../context.js";
import { chatdCommand } from "../next-steps.js";
import { CliError, printJson } from "../output.js";
import type { ImportProgress, ImportSummary } from "../import/zulip/import-realm.js";

// Loaded when the command runs: a server never needs the importer.
const slackImporter = () => import("../import/slack/import-slack.js");

/**
 * Refused before converting (which takes a while on a large export), by the importer's rule:
 * the data directory must not exist or hold nothing but settings.json.
 */
function requireEmptyDataDir(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory() || readdirSync(dir).some((name) => name !== SETTINGS_FILE_NAME)) {
    throw new CliError(
      `${dir} is not empty: an import creates a new organization in an empty data directory only`,
    );
  }
}

/** How `chatd import` shows progress and the summary: the same for every source. */
export interface ImportOutput {
  progressPrinter(): Promise<{ update(p: ImportProgress): void; stop(): void }>;
  printImportSummary(summary: ImportSummary, url: string, command: string): void;
}

/** `chatd import slack`, printing as `chatd import` does (given by import.ts, which holds it). */
export const importSlackCommand = (output: ImportOutput) =>
  new Command("slack")
    .description(
      "create the organization from a Slack export zip (users, channels, DMs, threads, reactions, files in the zip) in an empty data directory",
    )
    .argument("<path.zip>", "the export zip Slack (or slackdump / slack-advanced-exporter) wrote")
    .option("--no-input", "never prompt (this command asks nothing)")
    .option("--json", "print the summary of what was imported as JSON")
    .action(async (path: string, opts: { json?: boolean }, cmd: Command) => {
      const config = configFor(cmd);
      const zipPath = resolve(path);
      if (!existsSync(zipPath) || !statSync(zipPath).isFile()) throw new CliError(`${path} does not exist`);
      requireEmptyDataDir(config.data_dir);
      const progress = await output.progressPrinter();
      try {
        const summary = await (
          await slackImporter()
        ).importSlackExport({ zipPath, config, onProgress: (p) => progress.update(p) });
        progress.stop();
        if (opts.json) printJson(summary);
        else output.printImportSummary(summary, realmUrl(config), chatdCommand(config));
      } finally {
        progress.stop();
      }
    });
