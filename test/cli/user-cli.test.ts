import { cliDatabaseEnv, dataDirConfig } from "../helpers/postgres.js";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { cliIn } from "../helpers/cli.js";
import { checkFetchApiKey } from "../../src/actions/auth.js";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { silentLogger } from "../../src/logger.js";
import { MESSAGE_FLAG_BITS } from "../../src/lib/message-flags.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const BIN = join(ROOT, "bin", "chatd");

describe("the chatd CLI: user administration", function () {
  this.timeout(120_000);
  let dataDir: string;

  const chatd = (...args: string[]) => cliIn(dataDir)(args);
  /** Runs a command that must succeed with --json and returns the parsed output. */
  const json = (...args: string[]) => {
    const res = chatd(...args, "--json");
    expect(res.code, res.stderr).to.equal(0);
    return JSON.parse(res.stdout) as Record<string, unknown>;
  };
  const fails = (pattern: RegExp, ...args: string[]) => {
    const res = chatd(...args);
    expect(res.code, res.stdout).to.equal(1);
    expect(res.stderr).to.match(pattern);
    expect(res.stdout).to.equal("");
  };
  const canLogIn = async (email: string, password: string) => {
    const app = await createApp(dataDirConfig(dataDir), { logger: silentLogger, migrate: false });
    try {
      await checkFetchApiKey(app, email, password, "test");
      return true;
    } catch {
      return false;
    } finally {
      await closeApp(app);
    }
  };

  before(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-users-"));
    const init = chatd(
      "init",
      "--no-input",
      "--json",
      "--realm-name",
      "Elsinore",
      "--owner-email",
      "desdemona@zulip.test",
      "--owner-name",
      "Desdemona",
      "--owner-password",
      "correct horse",
    );
    expect(init.code, init.stderr).to.equal(0);
    for (const [name, role] of [
      ["hamlet", "member"],
      ["iago", "admin"],
    ] as const) {
      json(
        "user",
        "create",
        "--no-input",
        "--email",
        `${name}@zulip.test`,
        "--full-name",
        name,
        "--password",
        `${name}-pw`,
        "--role",
        role,
      );
    }
  });
  after(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("user show prints the User record", function () {
    const record = json("user", "show", "--email", "hamlet@zulip.test");
    expect(record).to.include({
      email: "hamlet@zulip.test",
      delivery_email: "hamlet@zulip.test",
      full_name: "hamlet",
      role: 400,
      is_active: true,
    });
    expect(record.profile_data).to.deep.equal({});
    const text = chatd("user", "show", "--email", "HAMLET@zulip.test");
    expect(text.code).to.equal(0);
    expect(text.stdout).to.match(/Role:\s+member/);
    fails(/no user with email nobody@zulip.test/, "user", "show", "--email", "nobody@zulip.test");
    fails(/missing --email/, "user", "show", "--no-input");
  });

  it("user create gives the new user #general's recent messages (Zulip's new-user history)", async function () {
    const app = await createApp(dataDirConfig(dataDir), { logger: silentLogger, migrate: false });
    try {
      const rows = await app
        .knex("user_messages as um")
        .join("users as u", "u.id", "um.user_id")
        .join("messages as m", "m.id", "um.message_id")
        .where("u.delivery_email", "hamlet@zulip.test")
        .orderBy("m.id")
        .select("m.topic", "um.flags");
      // The channel's creation notice and the welcome: unread, but `historical` (hamlet
      // never received them); then Welcome Bot's direct message, unread and starred.
      expect(rows).to.deep.equal([
        { topic: "channel events", flags: MESSAGE_FLAG_BITS.historical },
        { topic: "welcome", flags: MESSAGE_FLAG_BITS.historical },
        { topic: "", flags: MESSAGE_FLAG_BITS.starred | MESSAGE_FLAG_BITS.is_private },
      ]);
    } finally {
      await closeApp(app);
    }
  });

  it("user role applies the API's role rules", function () {
    expect(json("user", "role", "--email", "hamlet@zulip.test", "--role", "moderator")).to.include({
      role: "moderator",
      previous_role: "member",
    });
    expect(chatd("user", "role", "--email", "hamlet@zulip.test", "--role", "member").stdout).to.equal(
      "hamlet@zulip.test: moderator -> member\n",
    );
    fails(
      /The owner permission cannot be removed from the only organization owner\./,
      "user",
      "role",
      "--email",
      "desdemona@zulip.test",
      "--role",
      "admin",
    );
    fails(/invalid role 'king'/, "user", "role", "--email", "hamlet@zulip.test", "--role", "king");
    fails(/missing --role/, "user", "role", "--email", "hamlet@zulip.test", "--no-input");
    expect(json("user", "show", "--email", "desdemona@zulip.test").role).to.equal(100);
  });

  it("user deactivate and reactivate, never the only owner", async function () {
    expect(json("user", "deactivate", "--email", "hamlet@zulip.test")).to.include({ is_active: false });
    fails(/User is deactivated/, "user", "deactivate", "--email", "hamlet@zulip.test");
    fails(/User is deactivated/, "api-key", "--email", "hamlet@zulip.test");
    expect(await canLogIn("hamlet@zulip.test", "hamlet-pw")).to.equal(false);
    fails(
      /Cannot deactivate the only organization owner/,
      "user",
      "deactivate",
      "--email",
      "desdemona@zulip.test",
    );
    expect(chatd("user", "reactivate", "--email", "hamlet@zulip.test").stdout).to.equal(
      "reactivated hamlet@zulip.test\n",
    );
    expect(await canLogIn("hamlet@zulip.test", "hamlet-pw")).to.equal(true);
    const list = JSON.parse(chatd("user", "list", "--json").stdout) as Array<{
      email: string;
      is_active: boolean;
    }>;
    expect(list.every((u) => u.is_active)).to.equal(true);
  });

  it("user set-password and api-key", async function () {
    fails(
      /Password must be at least 6 characters long\./,
      "user",
      "set-password",
      "--email",
      "iago@zulip.test",
      "--password",
      "abc",
    );
    expect(await canLogIn("iago@zulip.test", "iago-pw")).to.equal(true);
    expect(json("user", "set-password", "--email", "iago@zulip.test", "--password", "new-secret")).to.include(
      {
        email: "iago@zulip.test",
      },
    );
    expect(await canLogIn("iago@zulip.test", "iago-pw")).to.equal(false);
    expect(await canLogIn("iago@zulip.test", "new-secret")).to.equal(true);
    fails(/missing --password/, "user", "set-password", "--email", "iago@zulip.test", "--no-input");
    const key = json("api-key", "--email", "iago@zulip.test");
    expect(key.api_key).to.match(/^[A-Za-z0-9]{32}$/);
    expect(key).to.include({ email: "iago@zulip.test", revoked: 0 });
  });

  it("user create refuses what the API refuses", function () {
    const create = (email: string, fullName: string, password: string) => [
      "user",
      "create",
      "--no-input",
      "--email",
      email,
      "--full-name",
      fullName,
      "--password",
      password,
    ];
    fails(/Invalid email 'nope'/, ...create("nope", "X", "secret12"));
    fails(/Password must be at least 6 characters long\./, ...create("x@zulip.test", "X", "abc"));
    fails(/Invalid characters in name!/, ...create("x@zulip.test", "X*", "secret12"));
    fails(/Email 'hamlet@zulip.test' already in use/, ...create("hamlet@zulip.test", "X", "secret12"));
    fails(/missing --email/, "user", "create", "--no-input", "--full-name", "X");
    const users = JSON.parse(chatd("user", "list", "--json").stdout) as unknown[];
    expect(users).to.have.lengthOf(3);
  });

  it("asks for a missing value on a terminal", async function () {
    if (spawnSync("script", ["--version"]).status !== 0) this.skip();
    const command = [
      process.execPath,
      BIN,
      "--data-dir",
      dataDir,
      "user",
      "role",
      "--email",
      "hamlet@zulip.test",
      "--json",
    ]
      .map((arg) => `'${arg}'`)
      .join(" ");
    // `script` runs the command on a pseudo-terminal, so stdin is a TTY.
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      env: { ...process.env, ...cliDatabaseEnv(["--data-dir", dataDir]) },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let answered = false;
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!answered && output.includes("New role")) {
        answered = true;
        child.stdin.write("guest\r");
      }
    });
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(code, output).to.equal(0);
    expect(output).to.match(/"role": "guest"/);
    expect(json("user", "show", "--email", "hamlet@zulip.test").role).to.equal(600);
  });
});
