import { cliDatabaseEnv } from "../helpers/postgres.js";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Command } from "commander";
import { createProgram } from "../../src/cli/program.js";
import { BIN, chatdSync, initDataDir, type CliResult } from "../helpers/cli.js";

describe("the chatd CLI: messages, prompts and flags", function () {
  this.timeout(60_000);
  let root: string;
  let dataDir: string;

  before(function () {
    root = mkdtempSync(join(tmpdir(), "chatd-cli-messages-"));
    dataDir = join(root, "data");
    initDataDir(dataDir);
  });
  after(function () {
    rmSync(root, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => chatdSync(["--data-dir", dataDir, ...args]);
  const refused = (res: CliResult, message: string) => {
    expect(res.code, res.stdout).to.equal(1);
    expect(res.stdout).to.equal("");
    expect(res.stderr.trim()).to.equal(`error: ${message}`);
  };
  const create = (email: string, fullName: string, password: string) =>
    cli("user", "create", "--no-input", "--email", email, "--full-name", fullName, "--password", password);

  it("refuses invalid values with the clear messages init gives", function () {
    refused(create("not-an-email", "Bad", "long-enough"), "Invalid email 'not-an-email'");
    refused(create("short@zulip.test", "Short", "12345"), "Password must be at least 6 characters long.");
    refused(create("blank@zulip.test", "  ", "long-enough"), "Name must not be empty!");
    refused(
      cli("user", "set-password", "--no-input", "--email", "desdemona@zulip.test", "--password", "12345"),
      "Password must be at least 6 characters long.",
    );
    refused(cli("user", "show", "--email", "nobody@zulip.test"), "no user with email nobody@zulip.test");
  });

  it("every command accepts --no-input", function () {
    const leaves = (cmd: Command): Command[] =>
      cmd.commands.length === 0 ? [cmd] : cmd.commands.flatMap((sub) => leaves(sub));
    const commands = leaves(createProgram());
    expect(commands.length).to.be.above(10);
    for (const cmd of commands) {
      expect(
        cmd.options.map((o) => o.long),
        `${cmd.parent?.name()} ${cmd.name()}`,
      ).to.include("--no-input");
    }
    const sent = cli(
      "message",
      "send",
      "--no-input",
      "--to",
      "desdemona@zulip.test",
      "--content",
      "hi",
      "--sender",
      "desdemona@zulip.test",
    );
    expect(sent.code, sent.stderr).to.equal(0);
  });

  it("--email takes the API-only address user{id}@{host} everywhere", function () {
    const created = create("horatio@zulip.test", "Horatio", "friend-of-hamlet");
    expect(created.code, created.stderr).to.equal(0);
    const id = Number(created.stdout.trim());
    const api = `user${id}@127.0.0.1`;
    const show = cli("user", "show", "--email", api, "--json");
    expect(show.code, show.stderr).to.equal(0);
    expect(JSON.parse(show.stdout)).to.include({ user_id: id, full_name: "Horatio" });
    for (const args of [
      ["user", "role", "--role", "moderator"],
      ["user", "set-password", "--password", "new-password"],
      ["user", "deactivate"],
      ["user", "reactivate"],
      ["api-key"],
    ]) {
      const res = cli(...args, "--no-input", "--email", api);
      expect(res.code, `${args.join(" ")}: ${res.stderr}`).to.equal(0);
    }
    const sent = cli("message", "send", "--to", "desdemona@zulip.test", "--content", "hi", "--sender", api);
    expect(sent.code, sent.stderr).to.equal(0);
    // With external_url set, the host is its host name.
    writeFileSync(
      join(dataDir, "settings.json"),
      JSON.stringify({ external_url: "https://chat.example.com" }),
    );
    try {
      expect(cli("user", "show", "--email", `user${id}@chat.example.com`).code).to.equal(0);
      refused(cli("user", "show", "--email", api), `no user with email ${api}`);
    } finally {
      rmSync(join(dataDir, "settings.json"));
    }
  });

  it("init says what to run next", function () {
    const fresh = join(root, "fresh");
    const res = chatdSync([
      "--data-dir",
      fresh,
      "init",
      "--no-input",
      "--realm-name",
      "Elsinore",
      "--owner-email",
      "desdemona@zulip.test",
      "--owner-name",
      "Desdemona",
      "--owner-password",
      "correct horse",
    ]);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).not.to.match(/ready/);
    expect(res.stdout).to.contain(`npx chatd --data-dir ${fresh} serve`);
    expect(res.stdout).to.contain(`npx chatd --data-dir ${fresh} user create --email`);
    expect(res.stdout).to.contain(`npx chatd --data-dir ${fresh} api-key --email`);
  });

  describe("the data directory", function () {
    it("is ./data in the current directory, else $CHATD_DATA_DIR, from any directory", function () {
      const here = chatdSync(["user", "list", "--json"], { cwd: root });
      expect(here.code, here.stderr).to.equal(0);
      const elsewhere = chatdSync(["user", "list", "--json"], {
        cwd: tmpdir(),
        env: { CHATD_DATA_DIR: dataDir },
      });
      expect(elsewhere.code, elsewhere.stderr).to.equal(0);
      expect(elsewhere.stdout).to.equal(here.stdout);
    });

    it("a command run where there is none says to run init, and creates nothing", function () {
      const empty = mkdtempSync(join(tmpdir(), "chatd-nowhere-"));
      try {
        for (const args of [
          ["user", "list"],
          [
            "user",
            "create",
            "--no-input",
            "--email",
            "a@zulip.test",
            "--full-name",
            "A",
            "--password",
            "secret1",
          ],
          ["api-key", "--no-input", "--email", "a@zulip.test"],
          ["message", "send", "--to", "a@zulip.test", "--content", "hi"],
          ["topic", "delete", "--channel", "general", "--topic", "t"],
          ["backup", "--to", join(empty, "backup.sqlite3")],
        ]) {
          // CHATD_DATA_DIR unset, or set but empty: ./data.
          for (const dataDirEnv of [undefined, ""]) {
            const res = chatdSync(args, { cwd: empty, env: { CHATD_DATA_DIR: dataDirEnv } });
            expect(res.code, `${args.join(" ")}: ${res.stderr}`).to.equal(1);
            expect(res.stderr).to.contain(
              `error: no realm in ${join(empty, "data")}: run \`chatd init\` first`,
            );
            expect(readdirSync(empty), args.join(" ")).to.deep.equal([]);
          }
        }
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });
  });

  const hasScript = spawnSync("script", ["--version"]).status === 0;

  it("prompts ask again until the value passes", async function () {
    if (!hasScript) this.skip(); // needs util-linux's `script` for a terminal
    // `script` gives the command a terminal, so it prompts; the test types into it.
    const child = spawn(
      "script",
      ["-qec", `${process.execPath} ${BIN} --data-dir ${dataDir} user create --json`, "/dev/null"],
      {
        env: { ...process.env, CHATD_LOG_LEVEL: "warn", ...cliDatabaseEnv(["--data-dir", dataDir]) },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let screen = "";
    child.stdout.on("data", (chunk: Buffer) => (screen += chunk.toString()));
    const waitFor = async (text: string) => {
      for (let i = 0; i < 200 && !screen.includes(text); i++) await new Promise((r) => setTimeout(r, 50));
      expect(screen, `waiting for ${text}`).to.contain(text);
    };
    const type = (text: string) => child.stdin.write(`\x15${text}\r`); // Ctrl-U: clear, then type
    await waitFor("Email");
    type("not-an-email");
    await waitFor("Invalid email 'not-an-email'");
    type("laertes@zulip.test");
    await waitFor("Full name");
    type("Laertes");
    await waitFor("Password");
    type("12345");
    await waitFor("Password must be at least 6 characters long.");
    type("revenge-for-polonius");
    const code = await new Promise((r) => child.once("exit", r));
    expect(code).to.equal(0);
    expect(screen).to.contain('"email": "laertes@zulip.test"');
  });
});
