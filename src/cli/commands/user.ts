import { Command } from "commander";
import type { App } from "../../app.js";
import { bool, type UserRow } from "../../db/rows.js";
import type { RealmSnapshot } from "../../world/realm.js";
import { roleName } from "../../world/roles.js";
import {
  validateEmail,
  validateFullName,
  validatePassword,
  validateRoleName,
  parseRole,
  ROLE_NAMES,
} from "../validation.js";
import { configFor, withApp } from "../context.js";
import { CliError, formatTable, printJson, printLine } from "../output.js";
import { valueOrAsk, type PromptOptions } from "../prompts.js";
import { requireRealm, userFromFlagOrAsk } from "../realm.js";

// Loaded when the command runs: a server never needs them (test/cli/lazy-loading.test.ts).
const userCreate = () => import("../../actions/user-create.js");
const userUpdate = () => import("../../actions/user-update.js");
const userActivation = () => import("../../actions/user-activation.js");
const userPassword = () => import("../../actions/user-password.js");
const passwordReset = () => import("../../actions/password-reset.js");
const customProfileFieldsLib = () => import("../../lib/custom-profile-fields.js");
const usersPresenters = () => import("../../presenters/users.js");

/**
 * `chatd user ...`: the administrator's verbs, run as the server operator through the
 * same actions (and rules) as the API. The operator acts with an owner's rights.
 */

interface CommonOptions extends PromptOptions {
  email?: string;
  json?: boolean;
}

/**
 * Opens the app, finds the realm and the user named by --email (asking for it on a
 * TTY until it names a user); `doing` names the command in failure messages.
 */
async function withUser<T>(
  cmd: Command,
  opts: CommonOptions,
  doing: string,
  fn: (app: App, realm: RealmSnapshot, user: UserRow) => Promise<T>,
): Promise<T> {
  return withApp(
    configFor(cmd),
    async (app) => {
      const realm = await requireRealm(app);
      return fn(app, realm, await userFromFlagOrAsk(opts, app.config, realm, opts.email));
    },
    { doing },
  );
}

/** The user as the realm now sees it (after a change). */
async function reload(app: App, realmId: number, userId: number): Promise<UserRow> {
  const realm = await app.realms.get(app.knex, realmId);
  return realm.user(userId)!;
}

const summary = (user: UserRow) => ({
  user_id: user.id,
  email: user.delivery_email,
  full_name: user.full_name,
  role: roleName(user.role),
  is_active: bool(user.is_active),
});

interface CreateOptions extends CommonOptions {
  fullName?: string;
  password?: string;
  role?: string;
}

const createCommand = new Command("create")
  .description("create a user")
  .option("--email <email>", "email address (login)")
  .option("--full-name <name>", "full name")
  .option("--password <password>", "password (at least 6 characters)")
  .option("--role <role>", `role: ${ROLE_NAMES.join(", ")} (default member)`)
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, role} as JSON")
  .action(async (opts: CreateOptions, cmd: Command) => {
    const role = parseRole(opts.role ?? "member");
    await withApp(
      configFor(cmd),
      async (app) => {
        const realm = await requireRealm(app);
        const email = await valueOrAsk(opts, opts.email, "--email", "Email", "input", validateEmail);
        const fullName = await valueOrAsk(
          opts,
          opts.fullName,
          "--full-name",
          "Full name",
          "input",
          validateFullName,
        );
        const password = await valueOrAsk(
          opts,
          opts.password,
          "--password",
          "Password",
          "password",
          validatePassword,
        );
        const user = await (
          await userCreate()
        ).checkCreateUser(app, realm.id, "operator", {
          email,
          fullName,
          password,
          role,
        });
        if (opts.json) printJson({ user_id: user.id, email: user.email, role: roleName(user.role) });
        else printLine(String(user.id));
      },
      { doing: "creating a user" },
    );
  });

const listCommand = new Command("list")
  .description("list the realm's users")
  .option("--json", "print the users as JSON")
  .option("--no-input", "never prompt (this command asks nothing)")
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    await withApp(
      configFor(cmd),
      async (app) => {
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
      },
      { doing: "listing users" },
    );
  });

const showCommand = new Command("show")
  .description("show one user: the User record, as the API gives it, with custom profile fields")
  .option("--email <email>", "the user's real or API email")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print the User record as JSON")
  .action(async (opts: CommonOptions, cmd: Command) => {
    await withUser(cmd, opts, "showing a user", async (app, realm, user) => {
      const profileData = bool(user.is_bot)
        ? undefined
        : ((await (await customProfileFieldsLib()).profileDataByUser(app.knex, realm.id, [user.id])).get(
            user.id,
          ) ?? {});
      // The operator sees everything, as the user sees themselves.
      const record = (await usersPresenters()).presentUser(user, user, {
        clientGravatar: false,
        profileData,
      });
      if (opts.json) return printJson(record);
      const rows: Array<[string, string]> = [
        ["ID", String(user.id)],
        ["Email", user.delivery_email],
        ["API email", user.email],
        ["Name", user.full_name],
        ["Role", roleName(user.role)],
        ["Active", bool(user.is_active) ? "yes" : "no"],
        ["Bot", bool(user.is_bot) ? `yes (owner ${user.bot_owner_id ?? "none"})` : "no"],
        ["Joined", (await usersPresenters()).isoMinutes(Number(user.date_joined))],
        ...Object.entries(profileData ?? {}).map(([id, v]): [string, string] => [`Field ${id}`, v.value]),
      ];
      printLine(rows.map(([k, v]) => `${`${k}:`.padEnd(11)} ${v}`).join("\n"));
    });
  });

interface RoleOptions extends CommonOptions {
  role?: string;
}

const roleCommand = new Command("role")
  .description("change a user's role (the owner role: only the last owner cannot lose it)")
  .option("--email <email>", "the user's real or API email")
  .option("--role <role>", `new role: ${ROLE_NAMES.join(", ")}`)
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, full_name, role, previous_role, is_active} as JSON")
  .action(async (opts: RoleOptions, cmd: Command) => {
    await withUser(cmd, opts, "changing a role", async (app, realm, user) => {
      const role = parseRole(
        await valueOrAsk(
          opts,
          opts.role,
          "--role",
          `New role (${ROLE_NAMES.join(", ")})`,
          "input",
          validateRoleName,
        ),
      );
      await (await userUpdate()).checkUpdateUser(app, realm.id, "operator", user.id, { role });
      const changed = await reload(app, realm.id, user.id);
      if (opts.json) printJson({ ...summary(changed), previous_role: roleName(user.role) });
      else printLine(`${changed.delivery_email}: ${roleName(user.role)} -> ${roleName(changed.role)}`);
    });
  });

const deactivateCommand = new Command("deactivate")
  .description("deactivate a user and the bots they own (never the only owner), ending their web sessions")
  .option("--email <email>", "the user's real or API email")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, full_name, role, is_active} as JSON")
  .action(async (opts: CommonOptions, cmd: Command) => {
    await withUser(cmd, opts, "deactivating a user", async (app, realm, user) => {
      await (await userActivation()).checkDeactivateUser(app, realm.id, "operator", user.id);
      const changed = await reload(app, realm.id, user.id);
      if (opts.json) printJson(summary(changed));
      else printLine(`deactivated ${changed.delivery_email}`);
    });
  });

const reactivateCommand = new Command("reactivate")
  .description("reactivate a deactivated user")
  .option("--email <email>", "the user's real or API email")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, full_name, role, is_active} as JSON")
  .action(async (opts: CommonOptions, cmd: Command) => {
    await withUser(cmd, opts, "reactivating a user", async (app, realm, user) => {
      await (await userActivation()).checkReactivateUser(app, realm.id, "operator", user.id);
      const changed = await reload(app, realm.id, user.id);
      if (opts.json) printJson(summary(changed));
      else printLine(`reactivated ${changed.delivery_email}`);
    });
  });

interface PasswordOptions extends CommonOptions {
  password?: string;
}

const setPasswordCommand = new Command("set-password")
  .description("set a user's password (their API keys stay valid; their web sessions end)")
  .option("--email <email>", "the user's real or API email")
  .option("--password <password>", "the new password (at least 6 characters)")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", "print {user_id, email, full_name, role, is_active} as JSON")
  .action(async (opts: PasswordOptions, cmd: Command) => {
    await withUser(cmd, opts, "setting a password", async (app, realm, user) => {
      const password = await valueOrAsk(
        opts,
        opts.password,
        "--password",
        "New password",
        "password",
        validatePassword,
      );
      await (await userPassword()).checkSetPassword(app, realm.id, user.id, password);
      if (opts.json) printJson(summary(user));
      else printLine(`password set for ${user.delivery_email}`);
    });
  });

const resetPasswordCommand = new Command("reset-password")
  .description("print a single-use link (valid for one hour) with which the user sets a new password")
  .option("--email <email>", "the user's real or API email")
  .option("--no-input", "never prompt; fail if a value is missing")
  .option("--json", 'print {"user_id", "email", "link", "expires_at"} as JSON')
  .action(async (opts: CommonOptions, cmd: Command) => {
    await withUser(cmd, opts, "creating a password reset link", async (app, _realm, user) => {
      if (bool(user.is_bot)) throw new CliError(`${user.delivery_email} is a bot: bots have no password`);
      if (!bool(user.is_active)) throw new CliError(`${user.delivery_email} is deactivated`);
      const { doCreatePasswordReset, PASSWORD_RESET_LIFETIME_SECS } = await passwordReset();
      const { link, now } = await app.db.transaction(async (tx) => ({
        link: await doCreatePasswordReset(app, tx, user),
        now: tx.now,
      }));
      if (opts.json) {
        printJson({
          user_id: user.id,
          email: user.delivery_email,
          link,
          expires_at: now + PASSWORD_RESET_LIFETIME_SECS,
        });
      } else printLine(link);
    });
  });

export const userCommand = new Command("user")
  .description("administer users")
  .addCommand(createCommand)
  .addCommand(listCommand)
  .addCommand(showCommand)
  .addCommand(roleCommand)
  .addCommand(deactivateCommand)
  .addCommand(reactivateCommand)
  .addCommand(setPasswordCommand)
  .addCommand(resetPasswordCommand);
