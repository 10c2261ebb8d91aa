import chalk from "chalk";
import { Command } from "commander";
import { bool } from "../../db/rows.js";
import { isOwnerRole } from "../../world/roles.js";
import { configFor, withApp } from "../context.js";
import { CliError, printJson, printLine } from "../output.js";
import { requireRealm } from "../realm.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const messageDeleteActions = () => import("../../actions/message-delete.js");
const topicsQueries = () => import("../../queries/topics.js");

interface DeleteOptions {
  channel: string;
  topic: string;
  json?: boolean;
}

function progressBar(done: number, total: number): string {
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `${chalk.green("#".repeat(filled))}${" ".repeat(width - filled)} ${done}/${total}`;
}

const deleteCommand = new Command("delete")
  .description("delete a topic and all its messages, in batches, newest first")
  .requiredOption("--channel <name>", "the channel")
  .requiredOption("--topic <name>", 'the topic ("" for the empty topic)')
  .option("--no-input", "never prompt (this command asks nothing)")
  .option("--json", "print {deleted} as JSON")
  .action(async (opts: DeleteOptions, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        // The operator acts with an owner's rights.
        const owner = [...realm.users].find((u) => bool(u.is_active) && isOwnerRole(u.role));
        if (!owner) throw new CliError("this realm has no active owner");
        const channel = (await app.channels.get(app.knex, realm.id)).channelByName(opts.channel);
        if (!channel) throw new CliError(`no channel named ${opts.channel}`);
        const total = await (await topicsQueries()).countTopicMessages(app.knex, channel.id, opts.topic);
        let deleted = 0;
        const interactive = process.stderr.isTTY && !opts.json;
        for (;;) {
          // One batch per round, so the bar moves with every committed batch.
          const round = await (
            await messageDeleteActions()
          ).deleteTopicRound(app, realm, owner, channel.id, opts.topic, 0);
          deleted += round.deleted;
          if (interactive) process.stderr.write(`\r${progressBar(deleted, total)}`);
          if (round.complete) break;
        }
        if (interactive) process.stderr.write("\n");
        if (opts.json) printJson({ deleted });
        else printLine(`deleted topic ${opts.topic} of ${channel.name} (${deleted} message(s))`);
      },
      { doing: "deleting a topic" },
    );
  });

export const topicCommand = new Command("topic").description("administer topics").addCommand(deleteCommand);
