import { cliDatabaseEnv, dataDirConfig } from "../helpers/postgres.js";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { cliIn } from "../helpers/cli.js";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { type App } from "../../src/app.js";
import { silentLogger } from "../../src/logger.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const BIN = join(ROOT, "bin", "chatd");

interface ChannelJson {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_default: boolean;
  is_archived: boolean;
  subscriber_count: number;
}

describe("the chatd CLI: channel create, list and archive", function () {
  this.timeout(120_000);
  let dataDir: string;
  let ownerKey: string;

  const chatd = (...args: string[]) => cliIn(dataDir)(args);
  const json = <T>(...args: string[]): T => {
    const res = chatd(...args, "--json");
    expect(res.code, res.stderr).to.equal(0);
    return JSON.parse(res.stdout) as T;
  };
  /** As json, without blocking the event loop (while this process talks to a server). */
  const jsonAsync = async <T>(...args: string[]): Promise<T> => {
    const { code, stdout, stderr } = await cliIn(dataDir).async([...args, "--json"]);
    expect(code, stderr).to.equal(0);
    return JSON.parse(stdout) as T;
  };
  const withTestApp = async <T>(fn: (app: App) => Promise<T>) => {
    const app = await createApp(dataDirConfig(dataDir), { logger: silentLogger, migrate: false });
    try {
      return await fn(app);
    } finally {
      await closeApp(app);
    }
  };
  /** What a refused command must leave alone. */
  const snapshot = () =>
    withTestApp(async (app) => ({
      streams: await app.knex("streams").orderBy("id").select("id", "name", "is_archived", "invite_only"),
      subscriptions: await app.knex("subscriptions").orderBy("id").select("user_id", "stream_id", "active"),
      defaults: await app.knex("default_streams").orderBy("stream_id").pluck("stream_id"),
      messages: Number((await app.knex("messages").count<Array<{ n: number }>>("* as n"))[0]!.n),
      outbox: Number((await app.knex("event_outbox").count<Array<{ n: number }>>("* as n"))[0]!.n),
    }));
  const fails = async (pattern: RegExp, ...args: string[]) => {
    const before = await snapshot();
    const res = chatd(...args);
    expect(res.code, res.stdout + res.stderr).to.equal(1);
    expect(res.stderr).to.match(pattern);
    expect(res.stdout).to.equal("");
    expect(await snapshot()).to.deep.equal(before);
  };

  before(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-channels-"));
    const init = json<{ api_key: string }>(
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
    );
    ownerKey = init.api_key;
    for (const [email, role] of [
      ["hamlet@zulip.test", "member"],
      ["polonius@zulip.test", "guest"],
    ] as const) {
      json(
        "user",
        "create",
        "--no-input",
        "--email",
        email,
        "--full-name",
        email.split("@")[0]!,
        "--password",
        "secret-pw",
        "--role",
        role,
      );
    }
  });
  after(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("channel list shows #general after init", function () {
    const channels = json<ChannelJson[]>("channel", "list");
    expect(channels.map((c) => [c.name, c.is_default, c.invite_only, c.subscriber_count])).to.deep.equal([
      ["general", true, false, 3], // the owner, and the users created since
    ]);
    const table = chatd("channel", "list");
    expect(table.code).to.equal(0);
    expect(table.stdout).to.match(/general\s+Public\s+yes\s+3/);
  });

  it("channel create makes a channel through the API's action, with its notices and subscribers", async function () {
    const created = json<ChannelJson>(
      "channel",
      "create",
      "--name",
      "  design ",
      "--description",
      "Pixels **and** paper",
      "--subscribers",
      "hamlet@zulip.test, desdemona@zulip.test",
      "--announce",
    );
    expect(created).to.include({
      name: "design",
      description: "Pixels **and** paper",
      invite_only: false,
      is_default: false,
      is_archived: false,
      subscriber_count: 2,
    });
    expect(chatd("channel", "create", "--name", "secret", "--private").stdout).to.match(
      /^created channel #secret \(ID \d+\)\n$/,
    );
    const everyone = json<ChannelJson>(
      "channel",
      "create",
      "--name",
      "all-hands",
      "--subscribers",
      "everyone",
    );
    expect(everyone.subscriber_count).to.equal(3);
    const lobby = json<ChannelJson>("channel", "create", "--name", "lobby", "--default");
    expect(lobby).to.include({ is_default: true, subscriber_count: 0 });

    await withTestApp(async (app) => {
      const design = await app.knex("streams").where({ name: "design" }).first();
      const notices = await app
        .knex("messages as m")
        .join("users as u", "u.id", "m.sender_id")
        .join("streams as s", "s.id", "m.stream_id")
        .whereIn("s.name", ["design", "general"])
        .where("m.id", ">", 2)
        .orderBy("m.id")
        .select<Array<{ name: string; topic: string; content: string; full_name: string }>>(
          "s.name",
          "m.topic",
          "m.content",
          "u.full_name",
        );
      expect(notices.map((n) => [n.name, n.topic, n.full_name])).to.deep.equal([
        ["general", "new channels", "Notification Bot"],
        ["design", "channel events", "Notification Bot"],
      ]);
      expect(notices[0]!.content).to.contain("created a new channel #**design**");
      expect(await app.knex("default_streams").pluck("stream_id")).to.include(lobby.stream_id);
      expect(design.creator_id).to.equal(1);
    });
    const names = json<ChannelJson[]>("channel", "list").map((c) => c.name);
    expect(names).to.deep.equal(["all-hands", "design", "general", "lobby", "secret"]);
  });

  it("channel create refuses what the API refuses, changing nothing", async function () {
    await fails(/Channel 'DESIGN' already exists/, "channel", "create", "--name", "DESIGN");
    await fails(
      /A default channel cannot be private\./,
      "channel",
      "create",
      "--name",
      "x",
      "--private",
      "--default",
    );
    await fails(/Invalid character in channel name/, "channel", "create", "--name", "bad\u0001name");
    await fails(
      /no user with email nobody@zulip.test/,
      "channel",
      "create",
      "--name",
      "x",
      "--subscribers",
      "nobody@zulip.test",
    );
    await fails(/missing --name/, "channel", "create", "--no-input");
    const deactivated = chatd("user", "deactivate", "--email", "hamlet@zulip.test");
    expect(deactivated.code, deactivated.stderr).to.equal(0);
    try {
      await fails(
        /User is deactivated/,
        "channel",
        "create",
        "--name",
        "x",
        "--subscribers",
        "hamlet@zulip.test",
      );
    } finally {
      expect(chatd("user", "reactivate", "--email", "hamlet@zulip.test").code).to.equal(0);
    }
  });

  it("channel archive archives as DELETE /streams/{id} does; refusals change nothing", async function () {
    const archived = json<ChannelJson>("channel", "archive", "--name", "lobby");
    expect(archived).to.include({ name: "lobby", is_archived: true, is_default: false });
    expect(chatd("channel", "archive", "--name", "all-hands").stdout).to.equal(
      "archived channel #all-hands\n",
    );
    await fails(/Channel is already deactivated/, "channel", "archive", "--name", "lobby");
    await fails(/no channel named nowhere/, "channel", "archive", "--name", "nowhere");
    await fails(/missing --name/, "channel", "archive", "--no-input");
    expect(json<ChannelJson[]>("channel", "list").map((c) => c.name)).to.deep.equal([
      "design",
      "general",
      "secret",
    ]);
    const all = json<ChannelJson[]>("channel", "list", "--include-archived");
    expect(all.filter((c) => c.is_archived).map((c) => c.name)).to.deep.equal(["all-hands", "lobby"]);
    await withTestApp(async (app) => {
      const notice = await app
        .knex("messages as m")
        .join("streams as s", "s.id", "m.stream_id")
        .where("s.name", "lobby")
        .orderBy("m.id", "desc")
        .first("m.content");
      expect(notice.content).to.equal("Channel #**lobby** has been archived.");
    });
  });

  it("a running server delivers the commands' events to its clients, through the outbox", async function () {
    const port = await new Promise<number>((resolvePort) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolvePort(port));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const child: ChildProcess = spawn(
      process.execPath,
      [BIN, "--data-dir", dataDir, "serve", "--port", String(port)],
      {
        env: { ...process.env, CHATD_LOG_LEVEL: "warn", ...cliDatabaseEnv(["--data-dir", dataDir]) },
        stdio: "ignore",
      },
    );
    const auth = {
      authorization: `Basic ${Buffer.from(`desdemona@zulip.test:${ownerKey}`).toString("base64")}`,
    };
    try {
      for (let i = 0; ; i++) {
        try {
          if ((await fetch(`${url}/api/v1/server_settings`)).ok) break;
        } catch {
          if (i > 100) throw new Error("server did not start");
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const registered = (await (
        await fetch(`${url}/api/v1/register`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            event_types: JSON.stringify(["stream", "subscription"]),
            client_capabilities: JSON.stringify({ archived_channels: true }),
          }),
        })
      ).json()) as { queue_id: string };
      // Run asynchronously: a blocked event loop would let the server close the idle
      // keep-alive connection the next fetch reuses.
      const created = await jsonAsync<ChannelJson>(
        "channel",
        "create",
        "--name",
        "live",
        "--subscribers",
        "desdemona@zulip.test",
      );
      await jsonAsync("channel", "archive", "--name", "live");
      type Event = {
        id: number;
        type: string;
        op: string;
        streams?: Array<{ name: string }>;
        subscriptions?: Array<{ name: string }>;
        property?: string;
        value?: unknown;
        stream_id?: number;
      };
      const archivedEvent = (e: Event) => e.property === "is_archived";
      let events: Event[] = [];
      for (let i = 0; i < 50 && !events.some(archivedEvent); i++) {
        const polled = (await (
          await fetch(
            `${url}/api/v1/events?${new URLSearchParams({ queue_id: registered.queue_id, last_event_id: "-1", dont_block: "true" }).toString()}`,
            { headers: auth },
          )
        ).json()) as { events: Event[] };
        events = polled.events.filter((e) => e.type !== "heartbeat");
        if (!events.some(archivedEvent)) await new Promise((r) => setTimeout(r, 100));
      }
      // Creation, the subscription, the creation notice's first message, then the archiving.
      expect(events.map((e) => [e.type, e.op, e.property ?? null])).to.deep.equal([
        ["stream", "create", null],
        ["subscription", "add", null],
        ["stream", "update", "first_message_id"],
        ["stream", "update", "is_archived"],
      ]);
      expect(events[0]!.streams!.map((s) => s.name)).to.deep.equal(["live"]);
      expect(events[1]!.subscriptions!.map((s) => s.name)).to.deep.equal(["live"]);
      expect(events[3]).to.include({ stream_id: created.stream_id, property: "is_archived", value: true });
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    }
  });

  it("asks for the name and description on a terminal", async function () {
    if (spawnSync("script", ["--version"]).status !== 0) this.skip();
    const command = [process.execPath, BIN, "--data-dir", dataDir, "channel", "create", "--json"]
      .map((arg) => `'${arg}'`)
      .join(" ");
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      env: { ...process.env, ...cliDatabaseEnv(["--data-dir", dataDir]) },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    const answered = new Set<string>();
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!answered.has("name") && output.includes("Channel name")) {
        answered.add("name");
        child.stdin.write("asked\r");
      }
      if (!answered.has("description") && output.includes("Description")) {
        answered.add("description");
        child.stdin.write("Asked for\r");
      }
    });
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(code, output).to.equal(0);
    const asked = json<ChannelJson[]>("channel", "list").find((c) => c.name === "asked");
    expect(asked).to.include({ description: "Asked for" });
  });
});
