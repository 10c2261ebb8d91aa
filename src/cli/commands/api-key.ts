import { Command } from "commander";
import { configFor, withApp } from "../context.js";
import { printJson, printLine } from "../output.js";
import { requireRealm, userFromFlagOrAsk } from "../realm.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const apiKeysActions = () => import("../../actions/api-keys.js");

interface ApiKeyOptions {
  email?: string;
  revokeAll?: boolean;
  input: boolean;
  json?: boolean;
}

export const apiKeyCommand = new Command("api-key")
  .description("issue a new API key for a user and print it (shown once)")
  .option("--email <email>", "the user's real or API email")
  .option("--revoke-all", "first revoke every existing key of the user")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {email, user_id, api_key, revoked} as JSON")
  .action(async (opts: ApiKeyOptions, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const user = await userFromFlagOrAsk(opts, app.config, realm, opts.email);
        const { key, revoked } = await (
          await apiKeysActions()
        ).checkIssueApiKey(app, realm.id, user.id, {
          revokeAll: opts.revokeAll === true,
          label: "chatd api-key",
        });
        if (opts.json) printJson({ email: user.email, user_id: user.id, api_key: key, revoked });
        else printLine(key);
      },
      { doing: "issuing an API key" },
    );
  });
