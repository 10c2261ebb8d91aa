import { rmSync } from "node:fs";
import { expect } from "chai";
import { createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestClock } from "../helpers/clock.js";
import { MESSAGE_FLAG_BITS } from "../../src/lib/message-flags.js";

/**
 * Missed-message emails (Zulip's missedmessage_emails): who gets one, batched per user over
 * missed_message_email_delay_secs, read messages left out, nothing lost across a restart.
 * Emails are looked at in the `emails` queue (another worker sends them).
 */

const DELAY_SECS = 1;

interface EmailRow {
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  realm_id: number | null;
}

const emails = (server: TestServer) =>
  server.app
    .knex<EmailRow>("emails")
    .orderBy("id")
    .select("to_address", "subject", "text_body", "html_body", "realm_id");

const pending = async (server: TestServer) =>
  Number((await server.app.knex("missed_message_notifications").count<{ n: number }[]>({ n: "*" }))[0]!.n);

/** Moves past the delay and waits for the worker. */
async function afterDelay(server: TestServer): Promise<void> {
  server.clock.advance(DELAY_SECS * 1000 + 1);
  await server.app.missedMessageEmails.idle();
}

describe("missed-message emails", function () {
  let server: TestServer;
  let realm: TestRealm;
  let hamlet: TestUser;
  let othello: TestUser;
  let cordelia: TestUser;

  beforeEach(async function () {
    server = await startTestServer({ missed_message_email_delay_secs: DELAY_SECS });
    realm = await server.factory.realm();
    hamlet = realm.users.hamlet!;
    othello = realm.users.othello!;
    cordelia = realm.users.cordelia!;
  });
  afterEach(async function () {
    await server.close();
  });

  const markRead = async (user: TestUser, ids: number[]) => {
    expectSuccess(await user.client.post("/messages/flags", { messages: ids, op: "add", flag: "read" }));
  };
  const setting = async (user: TestUser, params: Params) => {
    expectSuccess(await user.client.patch("/settings", params));
  };

  describe("direct messages", function () {
    it("a burst of direct messages to an offline user becomes one email after the delay", async function () {
      const ids = [];
      for (const text of ["To be, or not to be", "that is the question", "Whether 'tis nobler"]) {
        ids.push(await sendDirect(othello, [hamlet], text));
      }
      expect(await emails(server)).to.deep.equal([]);
      expect(await pending(server)).to.equal(3);
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => [e.to_address, e.subject, e.realm_id])).to.deep.equal([
        [hamlet.email, "DMs with Othello Dane", realm.id],
      ]);
      const text = sent[0]!.text_body;
      for (const line of ["To be, or not to be", "that is the question", "Whether 'tis nobler"]) {
        expect(text).to.include(`> ${line}`);
      }
      expect(text).to.include("> Othello Dane:");
      expect(text).to.include(`http://chatd.test/#narrow/dm/${othello.id}/near/${ids[0]}`);
      expect(sent[0]!.html_body).to.include("that is the question");
      expect(await pending(server)).to.equal(0);
      // Nothing more on the next run.
      await afterDelay(server);
      expect((await emails(server)).length).to.equal(1);
    });

    it("a group direct message is named after the other participants", async function () {
      await sendDirect(othello, [hamlet, cordelia], "Whither?");
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => [e.to_address, e.subject])).to.have.deep.members([
        [hamlet.email, "Group DMs with Othello Dane and Cordelia Dane"],
        [cordelia.email, "Group DMs with Hamlet Dane and Othello Dane"],
      ]);
      const ids = [othello.id, cordelia.id].sort((a, b) => a - b).join(",");
      expect(sent.find((e) => e.to_address === hamlet.email)!.text_body).to.include(
        `#narrow/dm/${ids}/near/`,
      );
    });

    it("a user with a live event queue that receives messages gets none", async function () {
      expectSuccess(await hamlet.client.post("/register", {}));
      // A queue without message events does not count (Zulip's accepts_messages).
      expectSuccess(await cordelia.client.post("/register", { event_types: JSON.stringify(["presence"]) }));
      await sendDirect(othello, [hamlet], "Are you there?");
      await sendDirect(othello, [cordelia], "Are you there?");
      await afterDelay(server);
      expect((await emails(server)).map((e) => e.to_address)).to.deep.equal([cordelia.email]);
    });

    it("leaves out messages read before the delay, and sends nothing when all were read", async function () {
      const first = await sendDirect(othello, [hamlet], "First thought");
      await sendDirect(othello, [hamlet], "Second thought");
      const toCordelia = await sendDirect(othello, [cordelia], "Only thought");
      await markRead(hamlet, [first]);
      await markRead(cordelia, [toCordelia]);
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => e.to_address)).to.deep.equal([hamlet.email]);
      expect(sent[0]!.text_body).to.include("Second thought");
      expect(sent[0]!.text_body).not.to.include("First thought");
      expect(await pending(server)).to.equal(0);
    });

    it("leaves out deleted messages", async function () {
      const id = await sendDirect(othello, [hamlet], "Burn after reading");
      await sendDirect(othello, [hamlet], "Keep this one");
      expectSuccess(await othello.client.delete(`/messages/${id}`));
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => e.to_address)).to.deep.equal([hamlet.email]);
      expect(sent[0]!.text_body).to.include("Keep this one");
      expect(sent[0]!.text_body).not.to.include("Burn after reading");
      expect(await pending(server)).to.equal(0);
    });

    it("leaves out a message read while its email was being composed", async function () {
      const first = await sendDirect(othello, [hamlet], "First thought");
      await sendDirect(othello, [hamlet], "Second thought");
      // The worker composes outside the write lock, then takes it to queue the email. Hold the
      // lock until it asks, and mark the first message read meanwhile, ahead of it.
      const db = server.app.db;
      const transaction = db.transaction.bind(db);
      let workerAsked!: () => void;
      const asked = new Promise<void>((resolve) => (workerAsked = resolve));
      const held = transaction(async (tx) => {
        await asked;
        await tx
          .knex("user_messages")
          .where({ user_id: hamlet.id, message_id: first })
          .update({ flags: tx.knex.raw("flags | ?", [MESSAGE_FLAG_BITS.read]) });
      });
      db.transaction = (fn, label) => {
        if (new Error().stack?.includes("emailBatch")) workerAsked();
        return transaction(fn, label);
      };
      try {
        await afterDelay(server);
        await held;
      } finally {
        db.transaction = transaction;
      }
      const sent = await emails(server);
      expect(sent.map((e) => e.to_address)).to.deep.equal([hamlet.email]);
      expect(sent[0]!.text_body).to.include("Second thought");
      expect(sent[0]!.text_body).not.to.include("First thought");
      expect(await pending(server)).to.equal(0);
    });

    it("never for the sender's own messages, nor to bots", async function () {
      const bot = await server.factory.user(realm.id, "yorick", undefined, {
        isBot: true,
        botOwnerId: hamlet.id,
      });
      await sendDirect(hamlet, [hamlet], "Note to self");
      await sendDirect(hamlet, [bot], "Alas");
      await sendDirect(hamlet, [cordelia, othello], "To both");
      await afterDelay(server);
      expect((await emails(server)).map((e) => e.to_address).sort()).to.deep.equal(
        [cordelia.email, othello.email].sort(),
      );
      expect(await pending(server)).to.equal(0);
    });

    it("none from a muted sender", async function () {
      expectSuccess(await hamlet.client.post(`/users/me/muted_users/${othello.id}`));
      await sendDirect(othello, [hamlet], "Ignore me not");
      await sendDirect(othello, [cordelia], "Ignore me not");
      await afterDelay(server);
      expect((await emails(server)).map((e) => e.to_address)).to.deep.equal([cordelia.email]);
    });

    it("none with enable_offline_email_notifications off", async function () {
      await setting(hamlet, { enable_offline_email_notifications: false });
      await sendDirect(othello, [hamlet], "Write back");
      await sendDirect(othello, [cordelia], "Write back");
      // Mentions too (Zulip's dm_mention_email_disabled_user_ids).
      const denmark = await createChannel(othello, "Denmark", [othello, hamlet]);
      await sendToChannel(othello, denmark, "castle", "Hello @**Hamlet Dane**");
      await afterDelay(server);
      expect((await emails(server)).map((e) => e.to_address)).to.deep.equal([cordelia.email]);
    });

    it("hides the messages when message_content_in_email_notifications is off", async function () {
      await setting(hamlet, { message_content_in_email_notifications: false });
      const id = await sendDirect(othello, [hamlet], "A secret plan");
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => e.subject)).to.deep.equal(["New messages"]);
      expect(sent[0]!.text_body).not.to.include("A secret plan");
      expect(sent[0]!.html_body).not.to.include("A secret plan");
      expect(sent[0]!.text_body).to.include(`#narrow/dm/${othello.id}/near/${id}`);
    });
  });

  describe("the realm's message_content_allowed_in_email_notifications", function () {
    it("an administrator turns message content off for everyone's emails", async function () {
      const iago = realm.users.iago!;
      expectSuccess(
        await iago.client.patch("/realm", { message_content_allowed_in_email_notifications: false }),
      );
      const state = expectSuccess(await hamlet.client.post("/register", { fetch_event_types: ["realm"] }));
      expect(state.realm_message_content_allowed_in_email_notifications).to.equal(false);
      await sendDirect(othello, [cordelia], "Between us");
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => [e.to_address, e.subject])).to.deep.equal([[cordelia.email, "New messages"]]);
      expect(sent[0]!.text_body).not.to.include("Between us");
    });

    it("a member may not change it, and nothing changes", async function () {
      expectError(
        await hamlet.client.patch("/realm", { message_content_allowed_in_email_notifications: false }),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
      const row = await server.app.knex("realms").where({ id: realm.id }).first();
      expect(Boolean(row.message_content_allowed_in_email_notifications)).to.equal(true);
    });
  });

  describe("the realm's name in the subject (realm_name_in_email_notifications_policy)", function () {
    it("always: named; automatic: named only when the address has accounts in several realms", async function () {
      await setting(hamlet, { realm_name_in_email_notifications_policy: 2 });
      await sendDirect(othello, [hamlet], "One");
      await sendDirect(othello, [cordelia], "One");
      await afterDelay(server);
      expect((await emails(server)).map((e) => [e.to_address, e.subject])).to.have.deep.members([
        [hamlet.email, "DMs with Othello Dane [Elsinore]"],
        [cordelia.email, "DMs with Othello Dane"],
      ]);
      // Cordelia's address now has an account in a second realm too.
      await server.factory.realm({ cordelia: 400 }, "Ilyria");
      await sendDirect(othello, [cordelia], "Two");
      await afterDelay(server);
      expect((await emails(server)).at(-1)!.subject).to.equal("DMs with Othello Dane [Elsinore]");
    });
  });

  describe("channel messages", function () {
    let denmark: number;
    beforeEach(async function () {
      denmark = await createChannel(othello, "Denmark", [othello, hamlet, cordelia]);
    });

    it("a mention emails; a plain message does not", async function () {
      await sendToChannel(othello, denmark, "castle", "Nothing to see");
      await sendToChannel(othello, denmark, "castle", "Hello @**Hamlet Dane**");
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => [e.to_address, e.subject])).to.deep.equal([[hamlet.email, "#Denmark > castle"]]);
      expect(sent[0]!.text_body).to.include("Hello @Hamlet Dane");
      expect(sent[0]!.text_body).to.include("because you were mentioned");
      expect(sent[0]!.text_body).to.include(
        `http://chatd.test/#narrow/channel/${denmark}-Denmark/topic/castle/near/`,
      );
    });

    it("a wildcard mention emails as wildcard_mentions_notify says", async function () {
      await setting(cordelia, { wildcard_mentions_notify: false });
      await sendToChannel(othello, denmark, "castle", "Listen, @**all**");
      await afterDelay(server);
      expect((await emails(server)).map((e) => e.to_address)).to.deep.equal([hamlet.email]);
    });

    it("a user group mention emails its members", async function () {
      const res = await othello.client.post("/user_groups/create", {
        name: "players",
        description: "The players",
        members: [hamlet.id],
      });
      expectSuccess(res);
      await sendToChannel(othello, denmark, "castle", "Now, @*players*!");
      await afterDelay(server);
      expect((await emails(server)).map((e) => [e.to_address, e.subject])).to.deep.equal([
        [hamlet.email, "#Denmark > castle"],
      ]);
    });

    it("none for a wildcard mention in a muted topic or a muted channel", async function () {
      expectSuccess(
        await hamlet.client.post("/user_topics", {
          stream_id: denmark,
          topic: "castle",
          visibility_policy: 1,
        }),
      );
      expectSuccess(
        await cordelia.client.post("/users/me/subscriptions/properties", {
          subscription_data: JSON.stringify([{ stream_id: denmark, property: "is_muted", value: true }]),
        }),
      );
      await sendToChannel(othello, denmark, "castle", "Listen, @**all**");
      await sendToChannel(othello, denmark, "moat", "And here, @**all**");
      await afterDelay(server);
      // Hamlet only for the topic he did not mute; Cordelia muted the channel.
      expect((await emails(server)).map((e) => [e.to_address, e.subject])).to.deep.equal([
        [hamlet.email, "#Denmark > moat"],
      ]);
    });

    it("a personal mention emails even in a muted topic (as Zulip)", async function () {
      expectSuccess(
        await hamlet.client.post("/user_topics", {
          stream_id: denmark,
          topic: "castle",
          visibility_policy: 1,
        }),
      );
      await sendToChannel(othello, denmark, "castle", "You too, @**Hamlet Dane**");
      await afterDelay(server);
      expect((await emails(server)).map((e) => e.to_address)).to.deep.equal([hamlet.email]);
    });

    it("a followed topic emails every message in it", async function () {
      expectSuccess(
        await hamlet.client.post("/user_topics", {
          stream_id: denmark,
          topic: "castle",
          visibility_policy: 3,
        }),
      );
      await sendToChannel(othello, denmark, "castle", "The ghost walks");
      await sendToChannel(othello, denmark, "moat", "Elsewhere");
      await afterDelay(server);
      const sent = await emails(server);
      expect(sent.map((e) => [e.to_address, e.subject])).to.deep.equal([[hamlet.email, "#Denmark > castle"]]);
      expect(sent[0]!.text_body).to.include("because you follow this topic");
    });

    it("a channel with email_notifications on emails every message", async function () {
      expectSuccess(
        await hamlet.client.post("/users/me/subscriptions/properties", {
          subscription_data: JSON.stringify([
            { stream_id: denmark, property: "email_notifications", value: true },
          ]),
        }),
      );
      await sendToChannel(othello, denmark, "moat", "Water everywhere");
      await afterDelay(server);
      expect((await emails(server)).map((e) => [e.to_address, e.subject])).to.deep.equal([
        [hamlet.email, "#Denmark > moat"],
      ]);
    });
  });
});

/**
 * Zulip's MissedMessageWorker: each user's batch waits their own
 * email_notifications_batching_period_seconds from its first message; the server's
 * missed_message_email_delay_secs caps it (by default it does not).
 */
describe("missed-message emails: each user's batching period", function () {
  let server: TestServer;
  let hamlet: TestUser;
  let othello: TestUser;
  let cordelia: TestUser;

  const period = async (user: TestUser, seconds: number) => {
    expectSuccess(
      await user.client.patch("/settings", { email_notifications_batching_period_seconds: seconds }),
    );
  };
  /** Moves the test clock on and lets the worker run; returns who has been emailed so far. */
  const after = async (ms: number) => {
    server.clock.advance(ms);
    await server.app.missedMessageEmails.idle();
    return (await emails(server)).map((e) => e.to_address);
  };

  beforeEach(async function () {
    server = await startTestServer();
    const realm = await server.factory.realm();
    hamlet = realm.users.hamlet!;
    othello = realm.users.othello!;
    cordelia = realm.users.cordelia!;
  });
  afterEach(async function () {
    await server.close();
  });

  it("two users with different periods get their emails at different times", async function () {
    await period(hamlet, 60);
    await period(cordelia, 300);
    await sendDirect(othello, [hamlet], "Hamlet, a word");
    await sendDirect(othello, [cordelia], "Cordelia, a word");
    expect(await after(59_000)).to.deep.equal([]);
    expect(await after(1_001)).to.deep.equal([hamlet.email]);
    expect(await after(239_000)).to.deep.equal([hamlet.email]);
    expect(await after(1_000)).to.deep.equal([hamlet.email, cordelia.email]);
  });

  it("Zulip's default is two minutes; later messages join the pending batch", async function () {
    await sendDirect(othello, [hamlet], "First");
    expect(await after(90_000)).to.deep.equal([]);
    await sendDirect(othello, [hamlet], "Second, during the wait");
    expect(await after(30_001)).to.deep.equal([hamlet.email]);
    const body = (await emails(server))[0]!.text_body;
    expect(body).to.include("First");
    expect(body).to.include("Second, during the wait");
  });

  it("a change of the setting applies to the next batch, not the pending one", async function () {
    await period(hamlet, 60);
    await sendDirect(othello, [hamlet], "Pending when the setting changes");
    await period(hamlet, 600);
    expect(await after(60_001)).to.deep.equal([hamlet.email]);
    await sendDirect(othello, [hamlet], "The next batch");
    expect(await after(60_001)).to.deep.equal([hamlet.email]);
    expect(await after(540_000)).to.deep.equal([hamlet.email, hamlet.email]);
    expect((await emails(server))[1]!.text_body).to.include("The next batch");
  });

  it("the server's missed_message_email_delay_secs caps every user's period", async function () {
    await server.close();
    server = await startTestServer({ missed_message_email_delay_secs: 30 });
    const realm = await server.factory.realm();
    [hamlet, othello] = [realm.users.hamlet!, realm.users.othello!];
    await period(hamlet, 300);
    await sendDirect(othello, [hamlet], "Capped");
    expect(await after(29_000)).to.deep.equal([]);
    expect(await after(1_001)).to.deep.equal([hamlet.email]);
  });

  it("refuses a period out of Zulip's range, keeping the old one", async function () {
    await period(hamlet, 60);
    for (const seconds of [0, -5, 7 * 24 * 3600 + 1]) {
      expectError(
        await hamlet.client.patch("/settings", { email_notifications_batching_period_seconds: seconds }),
        400,
        `Invalid email batching period: ${seconds} seconds`,
      );
    }
    const row = await server.app
      .knex("users")
      .where({ id: hamlet.id })
      .first("email_notifications_batching_period_seconds");
    expect(row).to.deep.equal({ email_notifications_batching_period_seconds: 60 });
  });
});

describe("missed-message emails across a restart", function () {
  it("pending notifications survive a restart and go out after it", async function () {
    const first = await startTestServer({ missed_message_email_delay_secs: 60 }, { keepDataDir: true });
    const servers: TestServer[] = [first];
    try {
      const realm = await first.factory.realm();
      const hamlet = realm.users.hamlet!;
      const othello = realm.users.othello!;
      await sendDirect(othello, [hamlet], "Before the storm");
      await sendDirect(othello, [hamlet], "During the storm");
      await first.stop();
      expect(await emailsAfterRestart(first.dataDir, servers, 0)).to.deep.equal([]);
      const sent = await emailsAfterRestart(first.dataDir, servers, 61_000);
      expect(sent.map((e) => [e.to_address, e.subject])).to.deep.equal([
        [hamlet.email, "DMs with Othello Dane"],
      ]);
      expect(sent[0]!.text_body).to.include("Before the storm");
      expect(sent[0]!.text_body).to.include("During the storm");
      // Once only.
      expect((await emailsAfterRestart(first.dataDir, servers, 120_000)).length).to.equal(1);
    } finally {
      for (const server of servers.reverse()) await server.close();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });

  /** Starts the server again `laterMs` after now, lets due work run, reads the emails and stops it. */
  async function emailsAfterRestart(dataDir: string, servers: TestServer[], laterMs: number) {
    const clock = new TestClock();
    clock.advance(laterMs);
    const server = await startTestServer(
      { missed_message_email_delay_secs: 60 },
      { dataDir, keepDataDir: true, clock },
    );
    servers.push(server);
    await server.app.missedMessageEmails.idle();
    const sent = await emails(server);
    await server.stop();
    return sent;
  }
});
