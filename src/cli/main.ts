import type { Command } from "commander";
import { createProgram } from "./program.js";
import { handleCliError } from "./output.js";
import { releaseAfterStartup } from "./young-generation.js";

/** The commands that serve: they release the young generation once listening (serve-loop.ts). */
const SERVING = new Set(["serve", "start"]);

export async function main(argv: string[]): Promise<void> {
  try {
    await createProgram()
      .hook("preAction", (_program: Command, command: Command) => {
        if (!SERVING.has(command.name())) releaseAfterStartup();
      })
      .parseAsync(argv);
  } catch (err) {
    process.exitCode = handleCliError(err);
  }
}

await main(process.argv);
