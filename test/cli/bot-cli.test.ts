import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { cliIn } from "../helpers/cli.js";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("the chatd CLI: bots", function () {
  this.timeout(120_000);
  let dataDir: string;

  const chatd = (...args: string[]) => cliIn(dataDir)(args);
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
  /** Runs `body` against a server on the CLI's data directory, closed afterwards. */
  const withServer = async (body: (server: TestServer) => Promise<void>) => {
    const server = await startTestServer({}, { dataDir, keepDataDir: true });
    try {
      await body(server);
    } finally {
      await server.close();
    }
  };
  const clientFor = (server: TestServer, email: string, apiKey: string) =>
    new Client(server.url, { email, apiKey });

  before(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-bots-"));
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
      ["polonius", "guest"],
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
        `${name}-password`,
        "--role",
        role,
      );
    }
  });
  after(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("bot create makes a bot with the API's rules and prints a working zuliprc", async function () {
    const created = json(
      "bot",
      "create",
      "--no-input",
      "--short-name",
      "helper",
      "--full-name",
      "Helper",
      "--owner",
      "hamlet@zulip.test",
      "--site",
      "http://chat.example.com/",
    );
    expect(created).to.include({
      email: "helper-bot@127.0.0.1",
      full_name: "Helper",
      bot_type: 1,
      owner: "hamlet@zulip.test",
      site: "http://chat.example.com",
    });
    expect(created.zuliprc).to.equal(
      `[api]\nemail=helper-bot@127.0.0.1\nkey=${created.api_key as string}\nsite=http://chat.example.com\n`,
    );
    // Without --json: the zuliprc on stdout, the rest on stderr; the owner defaults to the first owner.
    const text = chatd("bot", "create", "--no-input", "--short-name", "herald", "--full-name", "Herald");
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(/^\[api\]\nemail=herald-bot@127\.0\.0\.1\nkey=[A-Za-z0-9]{32}\nsite=http/);
    expect(text.stderr).to.match(/Created generic bot Herald .* owned by desdemona@zulip\.test/);

    await withServer(async (server) => {
      const bot = clientFor(server, "helper-bot@127.0.0.1", created.api_key as string);
      const me = expectSuccess(await bot.get("/users/me"));
      expect(me).to.include({ user_id: created.user_id, is_bot: true, bot_type: 1 });
      expect(me.bot_owner_id).to.be.a("number");
      const owner = expectSuccess(await bot.get("/users/hamlet@zulip.test")).user as { user_id: number };
      expect(me.bot_owner_id).to.equal(owner.user_id);
    });
  });

  it("bot create refuses what POST /bots refuses, creating nothing", function () {
    const before = (json("bot", "list") as unknown as unknown[]).length;
    fails(
      /Name is already in use\./,
      "bot",
      "create",
      "--no-input",
      "--short-name",
      "x",
      "--full-name",
      "Helper",
    );
    fails(
      /Not allowed for guest users/,
      "bot",
      "create",
      "--no-input",
      "--short-name",
      "spy",
      "--full-name",
      "Spy",
      "--owner",
      "polonius@zulip.test",
    );
    fails(
      /Embedded bots are not enabled\./,
      "bot",
      "create",
      "--no-input",
      "--short-name",
      "e",
      "--full-name",
      "E",
      "--type",
      "embedded",
    );
    fails(
      /Invalid payload_url: Value error, Not a URL/,
      "bot",
      "create",
      "--no-input",
      "--short-name",
      "hook",
      "--full-name",
      "Hook",
      "--type",
      "outgoing-webhook",
      "--payload-url",
      "ftp://example.com/",
    );
    fails(
      /invalid --type 'robot'/,
      "bot",
      "create",
      "--no-input",
      "--short-name",
      "r",
      "--full-name",
      "R",
      "--type",
      "robot",
    );
    fails(/missing --short-name/, "bot", "create", "--no-input", "--full-name", "Nameless");
    expect((json("bot", "list") as unknown as unknown[]).length).to.equal(before);
  });

  it("bot list shows every bot, as realm_bots describes them", function () {
    json(
      "bot",
      "create",
      "--no-input",
      "--short-name",
      "relay",
      "--full-name",
      "Relay",
      "--type",
      "outgoing-webhook",
      "--payload-url",
      "https://bots.example.com/relay",
      "--interface",
      "slack",
    );
    const bots = json("bot", "list") as unknown as Array<Record<string, unknown>>;
    const relay = bots.find((b) => b.email === "relay-bot@127.0.0.1")!;
    expect(relay).to.include({ full_name: "Relay", bot_type: 3, is_active: true, api_key: "" });
    expect(relay.services).to.have.length(1);
    expect((relay.services as Array<Record<string, unknown>>)[0]).to.include({
      base_url: "https://bots.example.com/relay",
      interface: 2,
    });
    const table = chatd("bot", "list");
    expect(table.code).to.equal(0);
    expect(table.stdout).to.match(
      /relay-bot@127\.0\.0\.1\s+Relay\s+outgoing-webhook\s+desdemona@zulip\.test\s+yes/,
    );
  });

  it("bot api-key replaces the key; bot deactivate deactivates; user reactivate brings it back", async function () {
    const first = json("bot", "create", "--no-input", "--short-name", "keys", "--full-name", "Keys");
    const second = json("bot", "api-key", "--email", "keys-bot@127.0.0.1");
    expect(second).to.include({ user_id: first.user_id, email: "keys-bot@127.0.0.1" });
    expect(second.api_key)
      .to.match(/^[A-Za-z0-9]{32}$/)
      .and.not.equal(first.api_key);
    const bare = chatd("bot", "api-key", "--email", "keys-bot@127.0.0.1");
    expect(bare.stdout).to.match(/^[A-Za-z0-9]{32}\n$/);
    const key = bare.stdout.trim();
    await withServer(async (server) => {
      expectError(
        await clientFor(server, "keys-bot@127.0.0.1", first.api_key as string).get("/users/me"),
        401,
        "Invalid API key",
        "INVALID_API_KEY",
      );
      expectSuccess(await clientFor(server, "keys-bot@127.0.0.1", key).get("/users/me"));
    });
    fails(/desdemona@zulip\.test is not a bot/, "bot", "api-key", "--email", "desdemona@zulip.test");
    fails(/no user with email nobody@zulip\.test/, "bot", "deactivate", "--email", "nobody@zulip.test");

    expect(json("bot", "deactivate", "--email", "keys-bot@127.0.0.1")).to.include({ is_active: false });
    expect(chatd("bot", "deactivate", "--email", "keys-bot@127.0.0.1").stdout).to.equal(
      "deactivated keys-bot@127.0.0.1\n",
    );
    expect(json("user", "reactivate", "--email", "keys-bot@127.0.0.1")).to.include({ is_active: true });
  });
});
