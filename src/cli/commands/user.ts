import { Command, Option } from "commander";
import { checkPassword } from "../../actions/init.js";
import { checkCreateUser } from "../../actions/users.js";
import { bool } from "../../db/rows.js";
import { ROLE_BY_NAME, roleName } from "../../permissions/roles.js";
import { configFor, withApp } from "../context.js";
import { formatTable, printJson, printLine } from "../output.js";
import { valueOrAsk } from "../prompts.js";
import { requireRealm } from "../realm.js";

interface CreateOptions {
  email?: string;
  fullName?: string;
  password?: string;
  role: string;
  input: boolean;
  json?: boolean;
}

const createCommand = new Command("create")
  .description("create a user")
  .option("--email <email>", "email address (login)")
  .option("--full-name <name>", "full name")
  .option("--password <password>", "password")
  .addOption(new Option("--role <role>", "role").choices(Object.keys(ROLE_BY_NAME)).default("member"))
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, role} as JSON")
  .action(async (opts: CreateOptions, cmd: Command) => {
    await withApp(configFor(cmd), async (app) => {
      const realm = await requireRealm(app);
      const email = await valueOrAsk(opts, opts.email, "--email", "Email");
      const fullName = await valueOrAsk(opts, opts.fullName, "--full-name", "Full name");
      const password = checkPassword(
        await valueOrAsk(opts, opts.password, "--password", "Password", "password"),
      );
      const user = await checkCreateUser(app, realm.realm.id, "operator", {
        email,
        fullName,
        password,
        role: ROLE_BY_NAME[opts.role],
      });
      if (opts.json) printJson({ user_id: user.id, email: user.email, role: roleName(user.role) });
      else printLine(String(user.id));
    });
  });

const listCommand = new Command("list")
  .description("list the realm's users")
  .option("--json", "print the users as JSON")
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    await withApp(configFor(cmd), async (app) => {
      const realm = await requireRealm(app);
      const users = [...realm.users].map((u) => ({
        user_id: u.id,
        email: u.delivery_email,
        full_name: u.full_name,
        role: roleName(u.role),
        is_bot: bool(u.is_bot),
        is_active: bool(u.is_active),
      }));
      if (opts.json) return printJson(users);
      printLine(
        formatTable(
          ["ID", "EMAIL", "NAME", "ROLE", "BOT", "ACTIVE"],
          users.map((u) => [
            String(u.user_id),
            u.email,
            u.full_name,
            u.role,
            u.is_bot ? "yes" : "",
            u.is_active ? "yes" : "no",
          ]),
        ),
      );
    });
  });

export const userCommand = new Command("user")
  .description("administer users")
  .addCommand(createCommand)
  .addCommand(listCommand);
