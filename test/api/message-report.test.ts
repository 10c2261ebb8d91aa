import { expect } from "chai";
import { realmUrl } from "../../src/config.js";
import { cast, channelMessages, createChannel, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { messageRow, sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("POST /messages/{message_id}/report", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let moderation: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    moderation = await createChannel(u.iago, "reported messages", [u.iago, u.prospero], {
      invite_only: true,
    });
    await setRealmFields(server, realm, { moderation_request_channel_id: moderation });
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia]);
    await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const report = (user: TestUser, id: number, params: Params) =>
    user.client.post(`/messages/${id}/report`, params);
  const mention = (user: TestUser) => `@_**${user.fullName}|${user.id}**`;
  /** Zulip's global time syntax for a stored message's date. */
  const sentAt = async (id: number) => {
    const row = await server.app.knex("messages").where({ id }).first<{ date_sent: number }>("date_sent");
    return `<time:${new Date(Number(row.date_sent) * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;
  };
  const lastReport = async () => (await channelMessages(server, moderation)).at(-1)!;
  const reportCount = async () => (await channelMessages(server, moderation)).length;

  it("posts a channel message's report as the Notification Bot, in Zulip's words", async function () {
    const id = await sendToChannel(u.othello, "Denmark", "civilized discussions", "I squeeze toothpaste");
    const queues = new Map<TestUser, string>();
    for (const user of [u.iago, u.prospero, u.hamlet]) {
      queues.set(user, (await register(user.client, { event_types: ["message"] })).queue_id as string);
    }
    expectSuccess(
      await report(u.hamlet, id, { report_type: "harassment", description: "crime against food" }),
    );
    const posted = await lastReport();
    expect(posted.topic).to.equal("Othello Dane moderation");
    expect(posted.content).to.equal(
      `${mention(u.hamlet)} reported a message sent by ${mention(u.othello)} at ${await sentAt(id)}.\n` +
        "```quote\n**Harassment**. crime against food\n```\n\n" +
        `\`\`\` spoiler Original message at #**Denmark>civilized discussions@${id}**\n` +
        "I squeeze toothpaste\n```",
    );
    const bot = await server.app.knex("users").where({ id: posted.sender_id }).first<{ full_name: string }>();
    expect(bot.full_name).to.equal("Notification Bot");
    const rendered = (await messageRow(server, posted.id)).rendered_content;
    expect(rendered).to.include('class="spoiler-block"');
    expect(rendered).to.include(`/near/${id}`);
    // The moderators hear of it; the reporter, not subscribed there, does not.
    for (const [user, queue] of queues) {
      const ids = (await pendingEvents(user.client, queue))
        .filter((e) => e.type === "message")
        .map((e) => (e.message as { id: number }).id);
      expect(ids, user.email).to.deep.equal(user === u.hamlet ? [] : [posted.id]);
    }
  });

  it("reports public channel history the reporter never received, and other reasons", async function () {
    const id = await sendToChannel(u.othello, "Denmark", "food", "pineapple belongs on pizza");
    expectSuccess(await report(u.iago, id, { report_type: "spam" }));
    expect((await lastReport()).content).to.include("```quote\n**Spam**. \n```");
    expectSuccess(await report(u.iago, id, { report_type: "other", description: "just because" }));
    expect((await lastReport()).content).to.include("**Other reason**. just because");
    for (const [type, label] of [
      ["inappropriate", "Inappropriate content"],
      ["norms", "Violates community norms"],
    ] as const) {
      expectSuccess(await report(u.iago, id, { report_type: type }));
      expect((await lastReport()).content).to.include(`**${label}**. `);
    }
  });

  it("reports direct messages with their recipients and a link to the conversation", async function () {
    const url = realmUrl(server.app.config);
    const dm = await sendDirect(u.othello, [u.hamlet], "I dip fries in ice cream");
    const pair = [u.hamlet.id, u.othello.id].sort((a, b) => a - b).join(",");
    expectSuccess(await report(u.hamlet, dm, { report_type: "harassment", description: "eww" }));
    expect((await lastReport()).content).to.equal(
      `${mention(u.hamlet)} reported a direct message sent by ${mention(u.othello)} at ${await sentAt(dm)}.\n` +
        "```quote\n**Harassment**. eww\n```\n\n" +
        `\`\`\` spoiler [Original message](${url}/#narrow/dm/${pair}/near/${dm})\n` +
        "I dip fries in ice cream\n```",
    );
    // One's own message names who received it.
    expectSuccess(await report(u.othello, dm, { report_type: "spam" }));
    expect((await lastReport()).content).to.match(
      new RegExp(
        `^${escape(`${mention(u.othello)} reported a direct message sent by ${mention(u.othello)}`)}`,
      ),
    );
    expect((await lastReport()).content).to.include(` to ${mention(u.hamlet)} at `);
    const group = await sendDirect(u.cordelia, [u.hamlet, u.othello], "group fries");
    expectSuccess(await report(u.hamlet, group, { report_type: "spam" }));
    const others = [mention(u.hamlet), mention(u.othello)].sort();
    const trio = [u.hamlet.id, u.othello.id, u.cordelia.id].sort((a, b) => a - b).join(",");
    const content = (await lastReport()).content;
    expect(content).to.include(
      `reported a direct message sent by ${mention(u.cordelia)} to ${others[0]} and ${others[1]} at `,
    );
    expect(content).to.include(`(${url}/#narrow/dm/${trio}-group/near/${group})`);
  });

  it("picks a fence longer than the message's, and an empty topic where only that is allowed", async function () {
    const id = await sendToChannel(u.othello, "Denmark", "code", "```\nrm -rf /\n```");
    expectSuccess(await report(u.hamlet, id, { report_type: "norms" }));
    expect((await lastReport()).content).to.include("```` spoiler Original message at");
    expect((await lastReport()).content.endsWith("```\nrm -rf /\n```\n````")).to.equal(true);
    await server.app.knex("streams").where({ id: moderation }).update({ topics_policy: "empty_topic_only" });
    server.app.channels.invalidate(realm.id);
    try {
      expectSuccess(await report(u.hamlet, id, { report_type: "norms" }));
      expect((await lastReport()).topic).to.equal("");
    } finally {
      await server.app.knex("streams").where({ id: moderation }).update({ topics_policy: "inherit" });
      server.app.channels.invalidate(realm.id);
    }
  });

  it("refuses bad parameters, inaccessible messages and organizations without a moderation channel", async function () {
    const id = await sendToChannel(u.othello, "Denmark", "x", "y");
    const secret = await sendToChannel(u.othello, "Secret", "x", "hush");
    const before = await reportCount();
    expectError(await report(u.hamlet, id, { report_type: "rude" }), 400, "Invalid report_type");
    expectError(
      await report(u.hamlet, id, {}),
      400,
      "Missing 'report_type' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(await report(u.hamlet, id, { report_type: "other" }), 400, "An explanation is required.");
    expectError(
      await report(u.hamlet, id, { report_type: "spam", description: "x".repeat(1001) }),
      400,
      "description is too long (limit: 1000 characters)",
    );
    expectError(await report(u.cordelia, secret, { report_type: "spam" }), 400, "Invalid message(s)");
    expectError(await report(u.cordelia, 99999999, { report_type: "spam" }), 400, "Invalid message(s)");
    for (const channelId of [null, 99999999]) {
      await setRealmFields(server, realm, { moderation_request_channel_id: channelId });
      try {
        expectError(
          await report(u.hamlet, id, { report_type: "spam" }),
          400,
          "Message reporting is not enabled in this organization.",
        );
      } finally {
        await setRealmFields(server, realm, { moderation_request_channel_id: moderation });
      }
    }
    expect(await reportCount()).to.equal(before);
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
