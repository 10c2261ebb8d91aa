import { cliDatabaseEnv, dataDirConfig } from "../helpers/postgres.js";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { basicAuth, cliIn, exited, freePort, waitForServer, BIN } from "../helpers/cli.js";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { type App } from "../../src/app.js";
import { silentLogger } from "../../src/logger.js";

const chatd = (dataDir: string, args: string[]) => cliIn(dataDir)(args);

async function withTestApp<T>(dataDir: string, fn: (app: App) => Promise<T>): Promise<T> {
  const app = await createApp(dataDirConfig(dataDir), { logger: silentLogger, migrate: false });
  try {
    return await fn(app);
  } finally {
    await closeApp(app);
  }
}

/**
 * The lines a new administrator needs, whether from `init` or the first `start`. `chatd`:
 * how they run chatd on that data directory (with --data-dir, as it is not ./data here).
 */
function expectNextSteps(out: string, chatd: string, email: string, apiKey: string, url: string) {
  expect(out).to.contain(`${chatd} user create --email`);
  expect(out).to.contain(`${url}/api/v1/fetch_api_key`);
  expect(out).to.contain(`${chatd} api-key --email`);
  expect(out).to.contain(`[api]\n    email=${email}\n    key=${apiKey}\n    site=${url}\n`);
  for (const client of ["Zulip mobile app", "zulip-terminal", "python bindings", "zulip_bots", "zulip-js"]) {
    expect(out).to.contain(client);
  }
  expect(out).not.to.contain("chatd is ready");
}

describe("the first run: a usable organization and the next steps", function () {
  this.timeout(60_000);
  let dataDir: string;

  beforeEach(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-first-run-"));
  });
  afterEach(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("init creates #general (public, default, the owner subscribed, a welcome) and prints the next steps", async function () {
    const init = chatd(dataDir, [
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
    expect(init.code, init.stderr).to.equal(0);
    const apiKey = /API key:\s+(\S{32})/.exec(init.stdout)![1]!;
    const command = `npx chatd --data-dir ${dataDir}`;
    expectNextSteps(init.stdout, command, "desdemona@zulip.test", apiKey, "http://127.0.0.1:9991");
    expect(init.stdout).to.contain(`${command} serve`);
    expect(init.stdout).to.contain("#general");

    const created = chatd(dataDir, [
      "user",
      "create",
      "--no-input",
      "--email",
      "hamlet@zulip.test",
      "--full-name",
      "Hamlet",
      "--password",
      "to-be-or-not",
    ]);
    expect(created.code, created.stderr).to.equal(0);

    await withTestApp(dataDir, async (app) => {
      const general = await app.knex("streams").where({ name: "general" }).first();
      expect(general).to.include({ invite_only: 0, is_web_public: 0, is_archived: 0 });
      expect(await app.knex("default_streams").pluck("stream_id")).to.deep.equal([general.id]);
      const realm = await app.knex("realms").first();
      expect(realm.new_stream_announcements_stream_id).to.equal(general.id);
      // Invitations required, so read receipts on, as Zulip's do_create_realm decides.
      expect(realm).to.include({ invite_required: 1, enable_read_receipts: 1 });
      const subscribers = await app
        .knex("subscriptions as s")
        .join("users as u", "u.id", "s.user_id")
        .where({ "s.stream_id": general.id, "s.active": true })
        .orderBy("u.id")
        .pluck("u.email");
      // The owner, and every user created later (general is a default channel).
      expect(subscribers).to.deep.equal(["desdemona@zulip.test", "hamlet@zulip.test"]);
      const messages = await app
        .knex("messages as m")
        .join("users as u", "u.id", "m.sender_id")
        .where("m.stream_id", general.id)
        .orderBy("m.id")
        .select<Array<{ full_name: string; topic: string; content: string }>>(
          "u.full_name",
          "m.topic",
          "m.content",
        );
      expect(messages.map((m) => [m.full_name, m.topic])).to.deep.equal([
        ["Notification Bot", "channel events"],
        ["Notification Bot", "welcome"],
      ]);
      expect(messages[1]!.content).to.contain("Welcome to Elsinore!");
      // Welcome Bot greets each new person, the organization's creator included, once.
      const greeted = await app
        .knex("messages as m")
        .join("users as s", "s.id", "m.sender_id")
        .join("recipients as r", "r.id", "m.recipient_id")
        .join("users as u", "u.id", "r.type_id")
        .where({ "s.full_name": "Welcome Bot", "r.type": 1 })
        .orderBy("m.id")
        .pluck<string[]>("u.email");
      expect(greeted).to.deep.equal(["desdemona@zulip.test", "hamlet@zulip.test"]);
    });
  });

  it("the first start does the same, and a client sees #general and its welcome over the API", async function () {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [BIN, "--data-dir", dataDir, "start", "--port", String(port)], {
      env: {
        ...process.env,
        ...cliDatabaseEnv(["--data-dir", dataDir, "start", "--port", String(port)], {}),
        CHATD_LOG_LEVEL: "warn",
        CHATD_REALM_NAME: "Globe Theatre",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitForServer(url, child);
      const apiKey = /API key:\s+(\S{32})/.exec(out)![1]!;
      const command = `npx chatd --data-dir ${dataDir}`;
      expectNextSteps(out, command, "owner@chatd.local", apiKey, url);
      expect(out).not.to.contain("npx chatd serve");
      expect(out).not.to.contain(`${command} serve`);
      const auth = basicAuth("owner@chatd.local", apiKey);
      const streams = (await (
        await fetch(`${url}/api/v1/streams?include_default=true`, { headers: auth })
      ).json()) as {
        streams: Array<{ name: string; is_default: boolean; invite_only: boolean }>;
      };
      expect(streams.streams.map((s) => [s.name, s.is_default, s.invite_only])).to.deep.equal([
        ["general", true, false],
      ]);
      const narrow = JSON.stringify([{ operator: "channel", operand: "general" }]);
      const fetched = (await (
        await fetch(
          `${url}/api/v1/messages?anchor=newest&num_before=10&num_after=0&narrow=${encodeURIComponent(narrow)}`,
          {
            headers: auth,
          },
        )
      ).json()) as {
        messages: Array<{ sender_full_name: string; subject: string; content: string; flags: string[] }>;
      };
      const welcome = fetched.messages.find((m) => m.subject === "welcome")!;
      expect(welcome.sender_full_name).to.equal("Notification Bot");
      expect(welcome.content).to.contain("Welcome to Globe Theatre!");
      expect(welcome.flags).not.to.include("read");
      // The README's first client example: sending to general works at once.
      const sent = await fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ type: "stream", to: "general", topic: "hello", content: "Hi!" }),
      });
      expect(sent.status).to.equal(200);
      // The page at / is the web client's login page.
      expect(await (await fetch(`${url}/`)).text()).to.contain("<h1>Log in to Globe Theatre</h1>");
      child.kill("SIGINT");
      expect(await exited(child)).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
