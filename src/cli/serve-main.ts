import { Command } from "commander";
import { serveCommand } from "./commands/serve.js";
import { startCommand } from "./commands/start.js";
import { handleCliError } from "./output.js";
import { useLazySourceMaps } from "./lazy-source-maps.js";

/** `chatd serve` and `chatd start` alone (bin/chatd picks this for them; config/build-server.mjs bundles it). */
export async function serveMain(argv: string[]): Promise<void> {
  try {
    await new Command("chatd")
      .description("a self-hosted team chat server speaking the Zulip API")
      .option(
        "--data-dir <dir>",
        "data directory (default: $CHATD_DATA_DIR, else ./data in the current directory)",
      )
      .showHelpAfterError()
      .addCommand(serveCommand)
      .addCommand(startCommand)
      .parseAsync(argv);
  } catch (err) {
    process.exitCode = handleCliError(err);
  }
}

// Stack traces name src/*.ts (the bundle's source maps).
useLazySourceMaps();
await serveMain(process.argv);
