import { expect } from "chai";
import { nowSeconds } from "../../src/clock.js";
import { realmUrl } from "../../src/config.js";
import { cast, createChannel, directMessagesTo, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type Reminder = Record<string, unknown>;

describe("message reminders", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let denmark: number;
  let secret: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
    secret = await createChannel(u.othello, "secret", [u.othello], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const now = () => nowSeconds(server.clock);
  const list = async (user: TestUser = u.hamlet) =>
    expectSuccess(await user.client.get("/reminders")).reminders as Reminder[];
  const remind = (messageId: number, params: Params = {}, user: TestUser = u.hamlet) =>
    user.client.post("/reminders", {
      message_id: messageId,
      scheduled_delivery_timestamp: now() + 3600,
      ...params,
    });
  const reminded = async (messageId: number, params: Params = {}, user: TestUser = u.hamlet) =>
    expectSuccess(await remind(messageId, params, user)).reminder_id as number;
  const advance = async (seconds: number) => {
    server.clock.advance(seconds * 1000);
    await server.app.scheduledDelivery.idle();
  };
  const mention = (user: TestUser) => `@_**${user.fullName}|${user.id}**`;
  afterEach(async function () {
    for (const user of [u.hamlet, u.othello]) {
      for (const r of await list(user)) {
        expectSuccess(await user.client.delete(`/reminders/${r.reminder_id as number}`));
      }
    }
  });

  it("sets a reminder about a channel message, in Zulip's words, and lists it", async function () {
    const message = await sendToChannel(u.othello, denmark, "plans", "Meet at **noon**");
    const at = now() + 3600;
    const id = await reminded(message, { scheduled_delivery_timestamp: at, note: "\n\nBring lunch  " });
    const url = realmUrl(server.app.config);
    const content =
      "You requested a reminder for the following message. Note:\n > Bring lunch\n\n" +
      `${mention(u.othello)} [said](${url}/#narrow/channel/${denmark}-Denmark/topic/plans/near/${message}) ` +
      `in #**Denmark>plans@${message}**:\n\`\`\`quote\nMeet at **noon**\n\`\`\``;
    const [reminder] = await list();
    expect(reminder).to.deep.include({
      reminder_id: id,
      type: "private",
      to: [u.hamlet.id],
      content,
      scheduled_delivery_timestamp: at,
      failed: false,
      reminder_target_message_id: message,
    });
    expect(reminder!.rendered_content).to.be.a("string").and.include("<blockquote>");
    expect(await list(u.othello)).to.deep.equal([]);
  });

  it("names a direct message's recipients, and only names a poll", async function () {
    const url = realmUrl(server.app.config);
    const dm = await sendDirect(u.othello, [u.hamlet, u.cordelia], "A secret");
    await reminded(dm, { scheduled_delivery_timestamp: now() + 100 });
    const poll = await sendToChannel(u.othello, denmark, "vote", "/poll Lunch?\nYes\nNo");
    await reminded(poll, { scheduled_delivery_timestamp: now() + 200 });
    const [direct, widget] = await list();
    const trio = [u.othello.id, u.hamlet.id, u.cordelia.id].sort((a, b) => a - b).join(",");
    const listed = [u.hamlet, u.cordelia].sort((a, b) => a.id - b.id).map(mention);
    expect(direct!.content).to.equal(
      "You requested a reminder for the following direct message.\n\n" +
        `${mention(u.othello)} [said](${url}/#narrow/dm/${trio}-group/near/${dm}) ` +
        `to ${listed.join(" and ")}:\n\`\`\`quote\nA secret\n\`\`\``,
    );
    expect(widget!.content).to.equal(
      "You requested a reminder for the following message.\n\n" +
        `${mention(u.othello)} [sent](${url}/#narrow/channel/${denmark}-Denmark/topic/vote/near/${poll}) ` +
        `a poll in #**Denmark>vote@${poll}**.`,
    );
  });

  it("refuses messages the user cannot read, past times and long notes", async function () {
    const hidden = await sendToChannel(u.othello, secret, "t", "Not for Hamlet");
    const visible = await sendToChannel(u.othello, denmark, "t", "For Hamlet");
    expectError(await remind(hidden), 400, "Invalid message(s)");
    expectError(await remind(999_999), 400, "Invalid message(s)");
    expectError(
      await remind(visible, { scheduled_delivery_timestamp: now() }),
      400,
      "Scheduled delivery time must be in the future.",
    );
    expectError(
      await remind(visible, { note: "x".repeat(1001) }),
      400,
      "Maximum reminder note length: 1000 characters",
    );
    expect(await list()).to.deep.equal([]);
  });

  it("only the user who set a reminder deletes it", async function () {
    const message = await sendToChannel(u.othello, denmark, "t", "Remember me");
    const id = await reminded(message);
    const before = await list();
    for (const target of [id, 999_999]) {
      expectError(await u.othello.client.delete(`/reminders/${target}`), 404, "Reminder does not exist");
    }
    expect(await list()).to.deep.equal(before);
    // Scheduled messages and reminders are not each other's.
    expectError(
      await u.hamlet.client.delete(`/scheduled_messages/${id}`),
      404,
      "Scheduled message does not exist",
    );
    expect(await list()).to.deep.equal(before);
  });

  it("the Notification Bot delivers it when due; reminders events and register parity", async function () {
    const message = await sendToChannel(u.othello, denmark, "t", "Due soon");
    const other = await register(u.othello.client, { event_types: ["reminders"] });
    const dmsBefore = (await directMessagesTo(server, u.hamlet)).length;
    let [due, deleted, kept] = [0, 0, 0];
    const params = { fetch_event_types: ["reminders"], event_types: ["reminders"] };
    const events = await verifyRegisterParity(u.hamlet.client, params, async () => {
      kept = await reminded(message, { scheduled_delivery_timestamp: now() + 9000 });
      deleted = await reminded(message, { scheduled_delivery_timestamp: now() + 8000 });
      due = await reminded(message, { scheduled_delivery_timestamp: now() + 60 });
      expectSuccess(await u.hamlet.client.delete(`/reminders/${deleted}`));
      await advance(61);
    });
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal([
      "reminders/add",
      "reminders/add",
      "reminders/add",
      "reminders/remove",
      "reminders/remove",
    ]);
    expect(events[3]).to.deep.include({ reminder_id: deleted });
    expect(events[4]).to.deep.include({ reminder_id: due });
    expect((await list()).map((r) => r.reminder_id)).to.deep.equal([kept]);
    const delivered = (await directMessagesTo(server, u.hamlet)).slice(dmsBefore);
    expect(delivered).to.have.lengthOf(1);
    const bot = await server.app
      .knex("users")
      .where({ id: delivered[0]!.sender_id })
      .first<{ full_name: string }>();
    expect(bot.full_name).to.equal("Notification Bot");
    expect(delivered[0]!.content).to.match(/^You requested a reminder for the following message\./);
    expect(await pendingEvents(u.othello.client, other.queue_id as string)).to.deep.equal([]);
  });
});
