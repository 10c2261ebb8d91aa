import { statSync } from "node:fs";
import { resolve } from "node:path";
import chalk from "chalk";
import { Command } from "commander";
import { realmUrl } from "../../config.js";
import { configFor } from "../context.js";
import { chatdCommand } from "../next-steps.js";
import { CliError, printJson, printLine } from "../output.js";
import { importSlackCommand } from "./import-slack.js";
import type { ImportProgress, ImportSummary } from "../import/zulip/import-realm.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const importRealm = () => import("../import/zulip/import-realm.js");
const unpack = () => import("../import/unpack.js");

interface ImportOptions {
  json?: boolean;
  input: boolean;
}

/** Progress on stderr: a cli-progress bar on a terminal, a plain line per stage otherwise. */
export async function progressPrinter(): Promise<{ update(p: ImportProgress): void; stop(): void }> {
  if (!process.stderr.isTTY) {
    let last = "";
    return {
      update(p) {
        const line = p.total === null ? p.stage : `${p.stage} ${p.done}/${p.total}`;
        if (p.stage !== last || p.done === p.total) process.stderr.write(`${line}\n`);
        last = p.stage;
      },
      stop() {},
    };
  }
  const { default: cliProgress } = await import("cli-progress");
  const bar = new cliProgress.SingleBar(
    { format: "{bar} {stage} {value}/{total}", stream: process.stderr, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      if (!started) bar.start(p.total ?? 0, p.done, { stage: p.stage });
      started = true;
      if (p.total !== null) bar.setTotal(p.total);
      bar.update(p.done, { stage: p.stage });
    },
    stop: () => bar.stop(),
  };
}

/** What was imported, and how people get in (imported users have no password). */
export function printImportSummary(summary: ImportSummary, url: string, command: string): void {
  printLine(chalk.green.bold(`Imported the organization "${summary.realm.name}".`));
  printLine(
    `  ${summary.users} users, ${summary.bots} bots, ${summary.channels} channels, ${summary.messages} messages, ` +
      `${summary.reactions} reactions, ${summary.uploads} uploaded files, ${summary.emoji} custom emoji files`,
  );
  printLine(`  ${chalk.bold("Realm URL:")} ${url}`);
  printLine();
  printLine("Imported users have no password. Each sets one with a reset link:");
  printLine(`  ${command} user reset-password --email <their email>   (prints a link to hand out)`);
  printLine(`  or, with email configured, "Forgot your password?" on ${url}/login/`);
  printLine(`Start the server with: ${command} serve`);
}

const zulipCommand = new Command("zulip")
  .description(
    "create the organization from a Zulip export (directory or .tar.gz) in an empty data directory",
  )
  .argument(
    "<path>",
    "the export: a .tar.gz from `manage.py export` or `chatd export`, or its unpacked directory",
  )
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print the summary of what was imported as JSON")
  .action(async (path: string, opts: ImportOptions, cmd: Command) => {
    const config = configFor(cmd);
    const source = resolve(path);
    let isDir: boolean;
    try {
      isDir = statSync(source).isDirectory();
    } catch {
      throw new CliError(`${path} does not exist`);
    }
    const unpacked = isDir ? null : await (await unpack()).unpackTarGz(source);
    const progress = await progressPrinter();
    try {
      const summary = await (
        await importRealm()
      ).importZulipExport({
        dir: unpacked?.dir ?? source,
        dataDir: config.data_dir,
        config,
        onProgress: (p) => progress.update(p),
      });
      progress.stop();
      if (opts.json) printJson(summary);
      else printImportSummary(summary, realmUrl(config), chatdCommand(config));
    } finally {
      progress.stop();
      unpacked?.dispose();
    }
  });

export const importCommand = new Command("import")
  .description("create the organization from another chat server's export")
  .addCommand(zulipCommand)
  .addCommand(importSlackCommand({ progressPrinter, printImportSummary }));
