import { Command } from "commander";
import { apiKeyCommand } from "./commands/api-key.js";
import { backupCommand } from "./commands/backup.js";
import { exportCommand } from "./commands/export.js";
import { botCommand } from "./commands/bot.js";
import { channelCommand } from "./commands/channel.js";
import { dbCommand } from "./commands/db.js";
import { emailCommand } from "./commands/email.js";
import { importCommand } from "./commands/import.js";
import { initCommand } from "./commands/init.js";
import { inviteCommand } from "./commands/invite.js";
import { messageCommand } from "./commands/message.js";
import { migrateCommand } from "./commands/migrate.js";
import { serveCommand } from "./commands/serve.js";
import { startCommand } from "./commands/start.js";
import { topicCommand } from "./commands/topic.js";
import { userCommand } from "./commands/user.js";

export function createProgram(): Command {
  return new Command("chatd")
    .description("a self-hosted team chat server speaking the Zulip API")
    .option(
      "--data-dir <dir>",
      "data directory (default: $CHATD_DATA_DIR, else ./data in the current directory)",
    )
    .showHelpAfterError()
    .addCommand(initCommand)
    .addCommand(serveCommand)
    .addCommand(startCommand)
    .addCommand(migrateCommand)
    .addCommand(userCommand)
    .addCommand(channelCommand)
    .addCommand(inviteCommand)
    .addCommand(botCommand)
    .addCommand(messageCommand)
    .addCommand(topicCommand)
    .addCommand(apiKeyCommand)
    .addCommand(emailCommand)
    .addCommand(backupCommand)
    .addCommand(importCommand)
    .addCommand(exportCommand)
    .addCommand(dbCommand);
}
