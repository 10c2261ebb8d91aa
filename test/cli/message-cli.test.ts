import { dataDirConfig } from "../helpers/postgres.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { cliIn } from "../helpers/cli.js";
import { checkCreateChannel } from "../../src/actions/channel-create.js";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { type App } from "../../src/app.js";
import type { UserRow } from "../../src/db/rows.js";
import { silentLogger } from "../../src/logger.js";

describe("the chatd CLI: message send and topic delete", function () {
  this.timeout(120_000);
  let dataDir: string;
  let channelId: number;

  const chatd = (args: string[], input?: string, env: Record<string, string> = {}) =>
    cliIn(dataDir)(args, { input, env });
  const withTestApp = async <T>(fn: (app: App) => Promise<T>) => {
    const app = await createApp(dataDirConfig(dataDir), { logger: silentLogger, migrate: false });
    try {
      return await fn(app);
    } finally {
      await closeApp(app);
    }
  };
  const counts = () =>
    withTestApp(async (app) => ({
      messages: Number((await app.knex("messages").count<Array<{ n: number }>>("* as n"))[0]!.n),
      outbox: Number((await app.knex("event_outbox").count<Array<{ n: number }>>("* as n"))[0]!.n),
    }));

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-messages-"));
    const init = chatd([
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
    const created = chatd([
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
    channelId = await withTestApp(async (app) => {
      const owner = await app.knex("users").where({ email: "desdemona@zulip.test" }).first<UserRow>();
      const hamlet = await app.knex("users").where({ email: "hamlet@zulip.test" }).first<UserRow>();
      return checkCreateChannel(app, owner, {
        name: "Announcements",
        description: "",
        subscribers: [owner.id, hamlet.id],
        announce: false,
        creation: { invite_only: false, is_web_public: false, is_default_stream: false, groups: {} },
      });
    });
  });
  after(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("posts as the Notification Bot to a channel topic, rendered, for every subscriber", async function () {
    const before = await counts();
    const res = chatd([
      "message",
      "send",
      "--channel",
      "Announcements",
      "--topic",
      "maintenance",
      "--content",
      "Down at **noon**",
      "--json",
    ]);
    expect(res.code, res.stderr).to.equal(0);
    const { id } = JSON.parse(res.stdout) as { id: number };
    await withTestApp(async (app) => {
      const row = await app
        .knex("messages as m")
        .join("users as u", "u.id", "m.sender_id")
        .where("m.id", id)
        .first();
      expect(row).to.include({
        stream_id: channelId,
        topic: "maintenance",
        rendered_content: "<p>Down at <strong>noon</strong></p>",
        full_name: "Notification Bot",
      });
      const receivers = await app.knex("user_messages").where({ message_id: id }).pluck("user_id");
      expect(receivers).to.have.lengthOf(2);
    });
    // Its event waits in the outbox for the running server.
    expect(await counts()).to.deep.equal({ messages: before.messages + 1, outbox: before.outbox + 1 });
  });

  it("sends a direct message from a chosen sender, content from standard input", async function () {
    const res = chatd(
      [
        "message",
        "send",
        "--to",
        "hamlet@zulip.test",
        "--sender",
        "desdemona@zulip.test",
        "--content",
        "-",
        "--json",
      ],
      "Come to the **hall**\n",
    );
    expect(res.code, res.stderr).to.equal(0);
    const { id } = JSON.parse(res.stdout) as { id: number };
    await withTestApp(async (app) => {
      const row = await app.knex("messages").where({ id }).first();
      expect(row).to.include({ stream_id: null, content: "Come to the **hall**" });
    });
  });

  it("refuses what the API refuses, and bad flag combinations, writing nothing", async function () {
    const before = await counts();
    for (const [args, pattern] of [
      [["--channel", "Nowhere", "--topic", "x", "--content", "hi"], /Channel 'Nowhere' does not exist/],
      [["--channel", "Announcements", "--content", "hi"], /--channel needs --topic/],
      [
        ["--to", "hamlet@zulip.test", "--channel", "Announcements", "--topic", "x", "--content", "hi"],
        /exactly one/,
      ],
      [["--to", "nobody@zulip.test", "--content", "hi"], /nobody@zulip.test/],
    ] as const) {
      const res = chatd(["message", "send", ...args]);
      expect(res.code, res.stderr).to.equal(1);
      expect(res.stderr).to.match(pattern);
    }
    expect(await counts()).to.deep.equal(before);
  });

  it("topic delete removes a topic in batches, queueing its delete events for the server", async function () {
    for (let i = 0; i < 5; i++) {
      const res = chatd([
        "message",
        "send",
        "--channel",
        "Announcements",
        "--topic",
        "old news",
        "--content",
        `n${i}`,
      ]);
      expect(res.code, res.stderr).to.equal(0);
    }
    const keep = chatd([
      "message",
      "send",
      "--channel",
      "Announcements",
      "--topic",
      "fresh",
      "--content",
      "stays",
    ]);
    expect(keep.code, keep.stderr).to.equal(0);
    const before = await counts();
    const res = chatd(
      ["topic", "delete", "--channel", "Announcements", "--topic", "OLD NEWS", "--json"],
      undefined,
      { CHATD_DELETE_TOPIC_BATCH_SIZE: "2" },
    );
    expect(res.code, res.stderr).to.equal(0);
    expect(JSON.parse(res.stdout)).to.deep.equal({ deleted: 5 });
    // Three batches, three delete_message events in the outbox.
    expect(await counts()).to.deep.equal({ messages: before.messages - 5, outbox: before.outbox + 3 });
    const missing = chatd(["topic", "delete", "--channel", "Nowhere", "--topic", "x"]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/no channel named Nowhere/);
  });
});
