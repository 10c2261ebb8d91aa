import chalk from "chalk";
import { ConfigError } from "../config.js";
import { JsonableError } from "../errors.js";
import { safeErrorMessage, stackFrames } from "../logger.js";

/** A usage or validation problem: exit 1 with the message, no stack. */
export class CliError extends Error {
  override name = "CliError";
}

/**
 * A failure to do the work (the database stayed busy, the port is taken): exit 2 with
 * one line that says what went wrong; the cause's stack only at log level debug.
 */
export class CliFailure extends Error {
  override name = "CliFailure";
}

let showStacks = false;

/** Set from the command's settings: `log_level` debug shows where a failure came from. */
export function setShowStacks(show: boolean): void {
  showStacks = show;
}

export const EXIT = { OK: 0, USAGE: 1, RUNTIME: 2 } as const;

/** Results go to stdout; everything for humans (progress, warnings) to stderr. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(line = ""): void {
  process.stdout.write(`${line}\n`);
}

export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function handleCliError(err: unknown): number {
  if (err instanceof CliError || err instanceof ConfigError) {
    process.stderr.write(`${chalk.red("error:")} ${err.message}\n`);
    return EXIT.USAGE;
  }
  if (err instanceof JsonableError) {
    process.stderr.write(`${chalk.red("error:")} ${err.message}\n`);
    return EXIT.USAGE;
  }
  if (err instanceof Error && err.name === "ExitPromptError") {
    process.stderr.write("cancelled\n");
    return EXIT.USAGE;
  }
  // Never an unexpected error's raw message: a database error's message quotes the failed SQL.
  const message = err instanceof CliFailure ? err.message : safeErrorMessage(err);
  process.stderr.write(`${chalk.red("error:")} ${message}\n`);
  const frames = showStacks ? stackFrames(err instanceof CliFailure ? err.cause : err) : "";
  if (frames) process.stderr.write(`${frames}\n`);
  return EXIT.RUNTIME;
}

/** A plain text table (for `user list`). */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [chalk.bold(line(headers)), ...rows.map(line)].join("\n");
}
