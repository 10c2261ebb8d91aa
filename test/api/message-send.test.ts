import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import {
  cast,
  createChannel,
  deactivateUser,
  setRealmFields,
  subscribe,
  systemGroupId,
  type Cast,
} from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import {
  flagBits,
  flagsByUser,
  messageCount,
  messageRow,
  postDirect,
  postToChannel,
  searchIndex,
  sendDirect,
  sendToChannel,
} from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createGroup, setRealmGroupSetting } from "../helpers/user-groups.js";

const ids = (users: readonly TestUser[]) => users.map((u) => u.id).sort((a, b) => a - b);
const sorted = (values: Iterable<number>) => [...values].sort((a, b) => a - b);

describe("POST /messages", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let denmark: number;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    denmark = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia, u.polonius]);
  });
  after(async function () {
    await server.close();
  });

  /** Asserts that `act` fails with the error and stores no message. */
  async function refused(act: () => ReturnType<typeof postToChannel>, msg: string, code = "BAD_REQUEST") {
    const before = await messageCount(server);
    expectError(await act(), 400, msg, code);
    expect(await messageCount(server), "a refused send stores nothing").to.equal(before);
  }

  describe("channel messages", function () {
    it("commits concurrent sends (sharing transactions) with distinct IDs, one row each", async function () {
      const before = await messageCount(server);
      const senders = [u.hamlet, u.othello, u.cordelia, u.polonius];
      const responses = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          postToChannel(senders[i % 4]!, "Denmark", "burst", `burst ${i}`),
        ),
      );
      const sent = responses.map((res) => expectSuccess(res).id as number);
      expect(new Set(sent).size).to.equal(24);
      expect(await messageCount(server)).to.equal(before + 24);
      for (const [i, id] of sent.entries())
        expect((await messageRow(server, id)).content).to.equal(`burst ${i}`);
    });

    it("stores the message for every active subscriber and returns its ID", async function () {
      const res = await postToChannel(u.hamlet, "Denmark", "castle", "To be, or not to be");
      const body = expectSuccess(res);
      expect(Object.keys(body).sort()).to.deep.equal(["id", "msg", "result"]);
      const row = await messageRow(server, body.id as number);
      expect(row).to.include({
        sender_id: u.hamlet.id,
        stream_id: denmark,
        topic: "castle",
        content: "To be, or not to be",
        rendered_content: "<p>To be, or not to be</p>",
      });
      expect(sorted((await flagsByUser(server, row.id)).keys())).to.deep.equal(
        ids([u.hamlet, u.othello, u.cordelia, u.polonius]),
      );
    });

    it("names the client after the User-Agent, or the client parameter", async function () {
      const viaAgent = await sendToChannel(u.hamlet, "Denmark", "clients", "one", {});
      expect((await messageRow(server, viaAgent)).sending_client).to.equal("node");
      const res = await u.hamlet.client.post(
        "/messages",
        { type: "stream", to: "Denmark", topic: "clients", content: "two" },
        { headers: { "user-agent": "ZulipPython/0.9.0 (Linux)" } },
      );
      expect((await messageRow(server, expectSuccess(res).id as number)).sending_client).to.equal(
        "ZulipPython",
      );
      const named = await sendToChannel(u.hamlet, "Denmark", "clients", "three", { client: "website" });
      expect((await messageRow(server, named)).sending_client).to.equal("website");
    });

    it("takes the channel as a name, a JSON name, an ID or a one-element list", async function () {
      for (const to of ["Denmark", '"Denmark"', "denmark", String(denmark), `[${denmark}]`, '["Denmark"]']) {
        const id = await sendToChannel(u.hamlet, to, "addressing", `to ${to}`);
        expect((await messageRow(server, id)).stream_id, to).to.equal(denmark);
      }
      // `type` may be "channel" too.
      const id = expectSuccess(
        await u.hamlet.client.post("/messages", { type: "channel", to: denmark, topic: "t", content: "c" }),
      ).id as number;
      expect((await messageRow(server, id)).stream_id).to.equal(denmark);
    });

    it("refuses malformed addresses", async function () {
      await refused(
        () => postToChannel(u.hamlet, `[${denmark}, ${denmark}]`, "t", "c"),
        "Expected exactly one channel",
      );
      await refused(
        () => postToChannel(u.hamlet, '{"name": "Denmark"}', "t", "c"),
        "Invalid data type for channel",
      );
      await refused(() => postToChannel(u.hamlet, "[]", "t", "c"), "Expected exactly one channel");
      await refused(() => postToChannel(u.hamlet, "1.5", "t", "c"), "Invalid data type for channel");
      await refused(() => postToChannel(u.hamlet, "", "t", "c"), "Channel name can't be empty.");
      await refused(
        () => u.hamlet.client.post("/messages", { type: "stream", topic: "t", content: "c" }),
        "Missing channel",
      );
      await refused(
        () => u.hamlet.client.post("/messages", { type: "stream", to: "Denmark", content: "c" }),
        "Missing topic",
      );
      await refused(
        () =>
          u.hamlet.client.post("/messages", { type: "broadcast", to: "Denmark", topic: "t", content: "c" }),
        "Invalid type",
      );
      await refused(
        () => u.hamlet.client.post("/messages", { type: "stream", to: "Denmark", topic: "t" }),
        "Missing 'content' argument",
        "REQUEST_VARIABLE_MISSING",
      );
    });

    it("reports unknown channels with Zulip's code, names HTML-escaped", async function () {
      const res = await postToChannel(u.hamlet, "<b>Elsinore</b>", "t", "c");
      expectError(res, 400, "Channel '&lt;b&gt;Elsinore&lt;/b&gt;' does not exist", "STREAM_DOES_NOT_EXIST");
      expect(res.body.stream).to.equal("&lt;b&gt;Elsinore&lt;/b&gt;");
      const byId = await postToChannel(u.hamlet, 999999, "t", "c");
      expectError(byId, 400, "Channel with ID '999999' does not exist", "STREAM_DOES_NOT_EXIST");
      expect(byId.body.stream_id).to.equal(999999);
    });

    it("uses the sender's default sending channel when `to` is left out", async function () {
      await server.app
        .knex("users")
        .where({ id: u.cordelia.id })
        .update({ default_sending_stream_id: denmark });
      server.app.realms.invalidate(realm.id);
      try {
        const id = expectSuccess(
          await u.cordelia.client.post("/messages", { type: "stream", topic: "default", content: "hi" }),
        ).id as number;
        expect((await messageRow(server, id)).stream_id).to.equal(denmark);
      } finally {
        await server.app
          .knex("users")
          .where({ id: u.cordelia.id })
          .update({ default_sending_stream_id: null });
        server.app.realms.invalidate(realm.id);
      }
    });
  });

  describe("content and topic", function () {
    it("strips trailing whitespace and leading blank lines, keeping indentation", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "normal", "\n\n    code\nmore  \n\t \n");
      expect((await messageRow(server, id)).content).to.equal("    code\nmore");
    });

    it("refuses empty messages and NUL bytes", async function () {
      await refused(() => postToChannel(u.hamlet, "Denmark", "t", " \n\t "), "Message must not be empty");
      await refused(() => postToChannel(u.hamlet, "Denmark", "t", ""), "Message must not be empty");
      await refused(
        () => postToChannel(u.hamlet, "Denmark", "t", "a\u0000b"),
        "Message must not contain null bytes",
      );
      await refused(() => postDirect(u.hamlet, [u.othello], "   "), "Message must not be empty");
    });

    it("truncates long content to 10000 code points with a notice", async function () {
      const notice = "\n[message truncated]";
      const exact = await sendToChannel(u.hamlet, "Denmark", "long", "x".repeat(10000));
      expect((await messageRow(server, exact)).content).to.equal("x".repeat(10000));
      const long = await sendToChannel(u.hamlet, "Denmark", "long", "😀".repeat(10001));
      const content = (await messageRow(server, long)).content;
      expect(content).to.equal("😀".repeat(10000 - notice.length) + notice);
      expect(Array.from(content)).to.have.lengthOf(10000);
    });

    it("strips topics and truncates them to 60 code points", async function () {
      const stripped = await sendToChannel(u.hamlet, "Denmark", "  spaced out \n", "c");
      expect((await messageRow(server, stripped)).topic).to.equal("spaced out");
      const exact = "é".repeat(60);
      expect((await messageRow(server, await sendToChannel(u.hamlet, "Denmark", exact, "c"))).topic).to.equal(
        exact,
      );
      const long = `${"🎭".repeat(59)}ab`;
      const id = await sendToChannel(u.hamlet, "Denmark", long, "c");
      expect((await messageRow(server, id)).topic).to.equal(`${"🎭".repeat(57)}...`);
    });

    it("accepts subject as the topic's old name, but not both at once", async function () {
      const id = expectSuccess(
        await u.hamlet.client.post("/messages", {
          type: "stream",
          to: "Denmark",
          subject: "legacy",
          content: "c",
        }),
      ).id as number;
      expect((await messageRow(server, id)).topic).to.equal("legacy");
      await refused(
        () =>
          u.hamlet.client.post("/messages", {
            type: "stream",
            to: "Denmark",
            topic: "a",
            subject: "b",
            content: "c",
          }),
        "Can't decide between 'topic' and 'subject' arguments",
        "REQUEST_CONFUSING_VAR",
      );
    });

    it("refuses unprintable characters in topics, with their position", async function () {
      await refused(
        () => postToChannel(u.hamlet, "Denmark", "ab\u0007c", "c"),
        "Invalid character in topic, at position 3!",
      );
      await refused(
        () => postToChannel(u.hamlet, "Denmark", "a\u0000", "c"),
        "Invalid character in topic, at position 2!",
      );
      await refused(
        () => postToChannel(u.hamlet, "Denmark", "🎭\uFFFE", "c"),
        "Invalid character in topic, at position 2!",
      );
    });

    it("reads the empty topic's display name (and the old '(no topic)') as the empty topic", async function () {
      for (const topic of ["", "general chat", " general chat ", "(no topic)"]) {
        const id = await sendToChannel(u.hamlet, "Denmark", topic, `topic ${topic}`);
        expect((await messageRow(server, id)).topic, topic).to.equal("");
      }
      await setRealmFields(server, realm, { empty_topic_display_name: "lobby" });
      try {
        expect(
          (await messageRow(server, await sendToChannel(u.hamlet, "Denmark", "lobby", "c"))).topic,
        ).to.equal("");
        const kept = await sendToChannel(u.hamlet, "Denmark", "general chat", "c");
        expect((await messageRow(server, kept)).topic).to.equal("general chat");
      } finally {
        await setRealmFields(server, realm, { empty_topic_display_name: null });
      }
    });
  });

  describe("topics_policy", function () {
    const post = (channel: string, topic: string) => postToChannel(u.hamlet, channel, topic, "policy");

    it("follows each channel's policy, and the organization's for inherit", async function () {
      for (const policy of ["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"]) {
        await createChannel(u.hamlet, `Policy ${policy}`, [u.hamlet], { topics_policy: policy });
      }
      const noEmpty = "Sending messages to the general chat topic is not allowed in this channel.";
      const onlyEmpty = "Only the general chat topic is allowed in this channel.";
      expectSuccess(await post("Policy inherit", ""));
      expectSuccess(await post("Policy allow_empty_topic", ""));
      await refused(() => post("Policy disable_empty_topic", ""), noEmpty);
      expectSuccess(await post("Policy disable_empty_topic", "named"));
      await refused(() => post("Policy empty_topic_only", "named"), onlyEmpty);
      expectSuccess(await post("Policy empty_topic_only", ""));
      expectSuccess(await post("Policy empty_topic_only", "general chat"));

      await setRealmFields(server, realm, { topics_policy: "disable_empty_topic" });
      try {
        await refused(() => post("Policy inherit", ""), noEmpty);
        await refused(() => post("Policy inherit", "general chat"), noEmpty);
        expectSuccess(await post("Policy inherit", "named"));
        expectSuccess(await post("Policy allow_empty_topic", ""));
      } finally {
        await setRealmFields(server, realm, { topics_policy: "allow_empty_topic" });
      }
    });
  });

  describe("who may post", function () {
    it("can_send_message_group decides; bots may use their owner's permission", async function () {
      const admins = await systemGroupId(server, realm, "role:administrators");
      const channel = await createChannel(u.iago, "Announcements", [u.iago, u.hamlet], {
        can_send_message_group: admins,
      });
      const ownedByIago = await server.factory.user(realm.id, "herald", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u.iago.id,
      });
      const ownedByHamlet = await server.factory.user(realm.id, "crier", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u.hamlet.id,
      });
      const denied = "You do not have permission to post in this channel.";
      await refused(() => postToChannel(u.hamlet, channel, "news", "hi"), denied);
      await refused(() => postToChannel(ownedByHamlet, channel, "news", "hi"), denied);
      expectSuccess(await postToChannel(u.iago, channel, "news", "hi"));
      expectSuccess(await postToChannel(u.desdemona, channel, "news", "hi"));
      expectSuccess(await postToChannel(ownedByIago, channel, "news", "hi"));

      const nobody = await systemGroupId(server, realm, "role:nobody");
      const closed = await createChannel(u.iago, "Closed", [u.iago], { can_send_message_group: nobody });
      await refused(() => postToChannel(u.iago, closed, "t", "c"), denied);
    });

    it("refuses archived channels", async function () {
      const id = await createChannel(u.othello, "Old news", [u.othello, u.hamlet]);
      expectSuccess(await u.othello.client.delete(`/streams/${id}`));
      await refused(
        () => postToChannel(u.hamlet, id, "t", "c"),
        "Not authorized to send to channel 'Old news'",
      );
      await refused(
        () => postToChannel(u.othello, "Old news", "t", "c"),
        "Not authorized to send to channel 'Old news'",
      );
    });

    it("takes private channels' messages from subscribers and those Zulip lets in", async function () {
      const everyone = await systemGroupId(server, realm, "role:members");
      const secret = await createChannel(u.othello, "Secret", [u.othello], { invite_only: true });
      const shared = await createChannel(u.othello, "Shared", [u.othello], {
        invite_only: true,
        history_public_to_subscribers: true,
        can_subscribe_group: everyone,
      });
      const protectedHistory = await createChannel(u.othello, "Protected", [u.othello], {
        invite_only: true,
        history_public_to_subscribers: false,
        can_subscribe_group: everyone,
      });
      const denied = (name: string) => `Not authorized to send to channel '${name}'`;
      expectSuccess(await postToChannel(u.othello, secret, "t", "c"));
      await refused(() => postToChannel(u.hamlet, secret, "t", "c"), denied("Secret"));
      await refused(() => postToChannel(u.iago, secret, "t", "c"), denied("Secret"));
      await refused(() => postToChannel(u.polonius, shared, "t", "c"), denied("Shared"));
      // Content access through can_subscribe_group counts where history is shared.
      expectSuccess(await postToChannel(u.hamlet, shared, "t", "c"));
      await refused(() => postToChannel(u.hamlet, protectedHistory, "t", "c"), denied("Protected"));

      const bot = await server.factory.user(realm.id, "spy", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u.othello.id,
      });
      expectSuccess(await postToChannel(bot, secret, "t", "from a bot of a subscriber"));

      await server.app.knex("users").where({ id: u.cordelia.id }).update({ can_forge_sender: true });
      server.app.realms.invalidate(realm.id);
      try {
        expectSuccess(await postToChannel(u.cordelia, secret, "t", "forged"));
      } finally {
        await server.app.knex("users").where({ id: u.cordelia.id }).update({ can_forge_sender: false });
        server.app.realms.invalidate(realm.id);
      }
      // A non-subscriber's message never reaches it: only subscribers get rows.
      const id = await sendToChannel(u.hamlet, shared, "t", "c");
      expect(sorted((await flagsByUser(server, id)).keys())).to.deep.equal([u.othello.id]);
    });

    it("lets guests post only where they are subscribed, or in web-public channels", async function () {
      await setRealmFields(server, realm, { enable_spectator_access: true });
      const web = await createChannel(u.desdemona, "Web", [u.desdemona], { is_web_public: true });
      const open = await createChannel(u.hamlet, "Open", [u.hamlet]);
      await refused(
        () => postToChannel(u.polonius, open, "t", "c"),
        "Not authorized to send to channel 'Open'",
      );
      expectSuccess(await postToChannel(u.polonius, "Denmark", "t", "subscribed"));
      expectSuccess(await postToChannel(u.polonius, web, "t", "web-public"));
      // Members post to public channels without subscribing.
      expectSuccess(await postToChannel(u.cordelia, open, "t", "c"));
    });

    it("needs can_create_topic_group only for topics that do not exist yet", async function () {
      const admins = await systemGroupId(server, realm, "role:administrators");
      const channel = await createChannel(u.iago, "Court", [u.iago, u.hamlet], {
        can_create_topic_group: admins,
      });
      const denied = "You do not have permission to create new topics in this channel.";
      await refused(() => postToChannel(u.hamlet, channel, "Gossip", "c"), denied);
      expectSuccess(await postToChannel(u.iago, channel, "Gossip", "c"));
      expectSuccess(
        await postToChannel(u.hamlet, channel, "gossip", "existing topics are open, ignoring case"),
      );
      await refused(() => postToChannel(u.hamlet, channel, "Scandal", "c"), denied);
    });
  });

  describe("direct messages", function () {
    it("sends 1:1 messages to the receiver's personal recipient, with is_private rows", async function () {
      const id = await sendDirect(u.hamlet, [u.othello], "Hello, Othello");
      const row = await messageRow(server, id);
      const recipient = await server.app.knex("recipients").where({ id: row.recipient_id }).first();
      expect(recipient).to.include({ type: 1, type_id: u.othello.id });
      expect(row).to.include({ stream_id: null, topic: "" });
      const bits = await flagBits(server, id);
      expect(sorted(bits.keys())).to.deep.equal(ids([u.hamlet, u.othello]));
      for (const flags of bits.values()) expect(flags & 2048).to.equal(2048);
      // is_private is internal: never listed.
      expect((await flagsByUser(server, id)).get(u.othello.id)).to.deep.equal([]);
      const back = await messageRow(server, await sendDirect(u.othello, [u.hamlet], "Hello back"));
      const backRecipient = await server.app.knex("recipients").where({ id: back.recipient_id }).first();
      expect(backRecipient).to.include({ type: 1, type_id: u.hamlet.id });
    });

    it("addresses recipients by IDs or emails, as JSON or a comma-separated list", async function () {
      for (const to of [
        `othello@zulip.test`,
        ` othello@zulip.test , , othello@zulip.test`,
        JSON.stringify(["othello@zulip.test"]),
        JSON.stringify("othello@zulip.test,"),
        JSON.stringify([u.othello.id, u.othello.id]),
        JSON.stringify([u.othello.id, u.hamlet.id]),
      ]) {
        const id = expectSuccess(await postDirect(u.hamlet, to, `to ${to}`)).id as number;
        expect(sorted((await flagBits(server, id)).keys()), to).to.deep.equal(ids([u.hamlet, u.othello]));
      }
    });

    it("refuses bad recipient lists", async function () {
      await refused(() => postDirect(u.hamlet, "[]", "c"), "Message must have recipients");
      await refused(() => postDirect(u.hamlet, "", "c"), "Message must have recipients");
      await refused(
        () => u.hamlet.client.post("/messages", { type: "private", content: "c" }),
        "Message must have recipients",
      );
      await refused(() => postDirect(u.hamlet, "5", "c"), "Invalid data type for recipients");
      await refused(() => postDirect(u.hamlet, "[null]", "c"), "Invalid data type for recipients");
      await refused(
        () => postDirect(u.hamlet, JSON.stringify([u.othello.id, "cordelia@zulip.test"]), "c"),
        "Recipient lists may contain emails or user IDs, but not both.",
      );
      await refused(
        () => postDirect(u.hamlet, JSON.stringify(["cordelia@zulip.test", u.othello.id]), "c"),
        "Recipient lists may contain emails or user IDs, but not both.",
      );
      await refused(
        () => postDirect(u.hamlet, "nobody@zulip.test", "c"),
        "Invalid email 'nobody@zulip.test'",
      );
      await refused(() => postDirect(u.hamlet, "[999999]", "c"), "Invalid user ID 999999");
    });

    it("sends messages to oneself to one's own personal recipient", async function () {
      const id = await sendDirect(u.hamlet, [u.hamlet], "note to self");
      const row = await messageRow(server, id);
      expect(await server.app.knex("recipients").where({ id: row.recipient_id }).first()).to.include({
        type: 1,
        type_id: u.hamlet.id,
      });
      expect([...(await flagBits(server, id)).keys()]).to.deep.equal([u.hamlet.id]);
    });

    it("sends group direct messages through one direct message group per set of participants", async function () {
      const first = await sendDirect(u.hamlet, [u.othello, u.cordelia], "all three of us");
      const again = await sendDirect(u.cordelia, [u.hamlet, u.othello, u.cordelia], "again");
      const [a, b] = [await messageRow(server, first), await messageRow(server, again)];
      expect(a.recipient_id).to.equal(b.recipient_id);
      const recipient = await server.app.knex("recipients").where({ id: a.recipient_id }).first();
      expect(recipient.type).to.equal(3);
      const group = await server.app.knex("direct_message_groups").where({ id: recipient.type_id }).first();
      expect(group).to.include({
        user_ids_key: ids([u.hamlet, u.othello, u.cordelia]).join(","),
        group_size: 3,
        realm_id: realm.id,
      });
      expect(sorted((await flagBits(server, first)).keys())).to.deep.equal(
        ids([u.hamlet, u.othello, u.cordelia]),
      );
      const other = await sendDirect(u.hamlet, [u.othello, u.iago], "another group");
      expect((await messageRow(server, other)).recipient_id).not.to.equal(a.recipient_id);
    });

    it("refuses deactivated recipients", async function () {
      const own = await server.factory.realm();
      const [hamlet, yorick] = [own.users.hamlet!, own.users.othello!];
      await deactivateUser(server, own, yorick);
      await refused(
        () => postDirect(hamlet, [yorick], "alas"),
        "'othello@zulip.test' is no longer using Zulip.",
      );
      await refused(
        () => postDirect(hamlet, [own.users.cordelia!, yorick], "alas"),
        "'othello@zulip.test' is no longer using Zulip.",
      );
    });

    describe("direct message permissions", function () {
      let own: TestRealm;
      let c: Cast;
      before(async function () {
        own = await server.factory.realm();
        c = cast(own);
      });

      it("direct_message_permission_group: some participant must be in it", async function () {
        const nobody = await systemGroupId(server, own, "role:nobody");
        const admins = await systemGroupId(server, own, "role:administrators");
        const everyone = await systemGroupId(server, own, "role:everyone");
        const bot = await server.factory.user(own.id, "scribe", ROLE.MEMBER, {
          isBot: true,
          botOwnerId: c.hamlet.id,
        });
        await setRealmGroupSetting(server, own.id, "direct_message_permission_group", nobody);
        try {
          await refused(
            () => postDirect(c.hamlet, [c.othello], "c"),
            "Direct messages are disabled in this organization.",
          );
          await refused(
            () => postDirect(c.iago, [c.othello], "c"),
            "Direct messages are disabled in this organization.",
          );
          // Oneself, bots, and bots' own messages are exempt.
          expectSuccess(await postDirect(c.hamlet, [c.hamlet], "c"));
          expectSuccess(await postDirect(c.hamlet, [bot], "c"));
          expectSuccess(await postDirect(bot, [c.othello], "c"));

          await setRealmGroupSetting(server, own.id, "direct_message_permission_group", admins);
          await refused(
            () => postDirect(c.hamlet, [c.othello], "c"),
            "This conversation does not include any users who can authorize it.",
          );
          expectSuccess(await postDirect(c.hamlet, [c.iago], "c"));
          expectSuccess(await postDirect(c.hamlet, [c.othello, c.iago], "c"));
        } finally {
          await setRealmGroupSetting(server, own.id, "direct_message_permission_group", everyone);
        }
      });

      it("direct_message_initiator_group: others may only answer", async function () {
        const admins = await systemGroupId(server, own, "role:administrators");
        const everyone = await systemGroupId(server, own, "role:everyone");
        await setRealmGroupSetting(server, own.id, "direct_message_initiator_group", admins);
        try {
          const denied = "You do not have permission to initiate direct message conversations.";
          await refused(() => postDirect(c.cordelia, [c.prospero], "c"), denied);
          await refused(() => postDirect(c.cordelia, [c.prospero, c.polonius], "c"), denied);
          expectSuccess(await postDirect(c.iago, [c.cordelia], "started by an administrator"));
          expectSuccess(await postDirect(c.cordelia, [c.iago], "an answer"));
          expectSuccess(await postDirect(c.iago, [c.cordelia, c.prospero], "a group"));
          expectSuccess(await postDirect(c.prospero, [c.cordelia, c.iago], "an answer in the group"));
          expectSuccess(await postDirect(c.cordelia, [c.cordelia], "oneself is fine"));
        } finally {
          await setRealmGroupSetting(server, own.id, "direct_message_initiator_group", everyone);
        }
      });
    });
  });

  describe("read_by_sender", function () {
    const senderFlags = async (id: number) => (await flagsByUser(server, id)).get(u.hamlet.id);

    it("defaults to unread for API clients and read for Zulip's own apps", async function () {
      expect(await senderFlags(await sendToChannel(u.hamlet, "Denmark", "read", "api"))).to.deep.equal([]);
      for (const client of ["website", "ZulipMobile", "ZulipElectron", "Zulip desktop app"]) {
        const id = await sendToChannel(u.hamlet, "Denmark", "read", client, { client });
        expect(await senderFlags(id), client).to.deep.equal(["read"]);
      }
      expect(
        await senderFlags(await sendDirect(u.hamlet, [u.othello], "dm", { client: "ios" })),
      ).to.deep.equal(["read"]);
    });

    it("can be set either way", async function () {
      expect(
        await senderFlags(await sendToChannel(u.hamlet, "Denmark", "read", "c", { read_by_sender: true })),
      ).to.deep.equal(["read"]);
      const id = await sendToChannel(u.hamlet, "Denmark", "read", "c", {
        read_by_sender: false,
        client: "website",
      });
      expect(await senderFlags(id)).to.deep.equal([]);
      expect((await flagsByUser(server, id)).get(u.othello.id)).to.deep.equal([]);
    });
  });

  describe("rendering, mentions and flags", function () {
    it("stores rendered HTML and what the message contains", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "render", "**bold** https://example.com/a.png");
      const row = await messageRow(server, id);
      expect(row.rendered_content).to.contain("<strong>bold</strong>");
      expect(Boolean(row.has_link)).to.equal(true);
      expect(Boolean(row.is_me_message)).to.equal(false);
      const me = await messageRow(server, await sendToChannel(u.hamlet, "Denmark", "render", "/me waves"));
      expect(Boolean(me.is_me_message)).to.equal(true);
      expect(Boolean(me.has_link)).to.equal(false);
      const image = await messageRow(
        server,
        await sendToChannel(u.hamlet, "Denmark", "render", "[pic](https://example.com/x.jpg)"),
      );
      expect(Boolean(image.has_image)).to.equal(true);
    });

    it("flags direct mentions but not silent ones", async function () {
      const id = await sendToChannel(
        u.hamlet,
        "Denmark",
        "mentions",
        "@**Othello Dane** and @_**Cordelia Dane**",
      );
      const flags = await flagsByUser(server, id);
      expect(flags.get(u.othello.id)).to.deep.equal(["mentioned"]);
      expect(flags.get(u.cordelia.id)).to.deep.equal([]);
      expect(flags.get(u.hamlet.id)).to.deep.equal([]);
      const row = await messageRow(server, id);
      expect(row.rendered_content).to.contain(
        `<span class="user-mention" data-user-id="${u.othello.id}">@Othello Dane</span>`,
      );
      expect(row.rendered_content).to.contain(
        `<span class="user-mention silent" data-user-id="${u.cordelia.id}">Cordelia Dane</span>`,
      );
      const dm = await sendDirect(u.hamlet, [u.othello], `@**Othello Dane|${u.othello.id}**`);
      expect((await flagsByUser(server, dm)).get(u.othello.id)).to.deep.equal(["mentioned"]);
    });

    it("flags every recipient for channel wildcards", async function () {
      for (const word of ["all", "everyone", "channel", "stream"]) {
        const flags = await flagsByUser(
          server,
          await sendToChannel(u.hamlet, "Denmark", "wild", `@**${word}**`),
        );
        for (const user of [u.hamlet, u.othello, u.cordelia, u.polonius]) {
          expect(flags.get(user.id), word).to.deep.equal(["stream_wildcard_mentioned", "wildcard_mentioned"]);
        }
      }
      const silent = await flagsByUser(server, await sendToChannel(u.hamlet, "Denmark", "wild", "@_**all**"));
      expect(silent.get(u.othello.id)).to.deep.equal([]);
    });

    it("flags topic participants (senders and reactors) for @**topic**", async function () {
      const earlier = await sendToChannel(u.othello, "Denmark", "participants", "I was here");
      await server.app.knex("reactions").insert({
        message_id: earlier,
        user_id: u.polonius.id,
        emoji_name: "smile",
        emoji_code: "1f642",
        reaction_type: "unicode_emoji",
      });
      await sendToChannel(u.othello, "Denmark", "elsewhere", "not a participant there");
      const flags = await flagsByUser(
        server,
        await sendToChannel(u.hamlet, "Denmark", "Participants", "@**topic**"),
      );
      const topicFlags = ["topic_wildcard_mentioned", "wildcard_mentioned"];
      expect(flags.get(u.othello.id)).to.deep.equal(topicFlags);
      expect(flags.get(u.polonius.id)).to.deep.equal(topicFlags);
      expect(flags.get(u.hamlet.id)).to.deep.equal(topicFlags);
      expect(flags.get(u.cordelia.id)).to.deep.equal([]);
    });

    it("flags members of mentioned groups, through subgroups too", async function () {
      const inner = await createGroup(u.hamlet.client, "inner", { members: [u.cordelia.id] });
      await createGroup(u.hamlet.client, "players", { members: [u.othello.id], subgroups: [inner] });
      const id = await sendToChannel(u.hamlet, "Denmark", "groups", "@*players*");
      const flags = await flagsByUser(server, id);
      expect(flags.get(u.othello.id)).to.deep.equal(["mentioned", "group_mentioned"]);
      expect(flags.get(u.cordelia.id)).to.deep.equal(["mentioned", "group_mentioned"]);
      expect(flags.get(u.polonius.id)).to.deep.equal([]);
      const silent = await flagsByUser(
        server,
        await sendToChannel(u.hamlet, "Denmark", "groups", "@_*players*"),
      );
      expect(silent.get(u.othello.id)).to.deep.equal([]);
    });

    it("refuses group mentions the sender may not make, and ignores deactivated groups", async function () {
      const admins = await systemGroupId(server, realm, "role:administrators");
      await createGroup(u.iago.client, "council", { members: [u.othello.id], can_mention_group: admins });
      await refused(
        () => postToChannel(u.hamlet, "Denmark", "groups", "@*council*"),
        "You are not allowed to mention user group 'council'.",
      );
      await refused(
        () => postDirect(u.hamlet, [u.othello], "@*council*"),
        "You are not allowed to mention user group 'council'.",
      );
      // Silent mentions notify nobody, so anyone may make them.
      expectSuccess(await postToChannel(u.hamlet, "Denmark", "groups", "@_*council*"));
      const id = await sendToChannel(u.iago, "Denmark", "groups", "@*council*");
      expect((await flagsByUser(server, id)).get(u.othello.id)).to.deep.equal([
        "mentioned",
        "group_mentioned",
      ]);

      const retired = await createGroup(u.hamlet.client, "retired", { members: [u.othello.id] });
      expectSuccess(await u.hamlet.client.post(`/user_groups/${retired}/deactivate`));
      const plain = await sendToChannel(u.hamlet, "Denmark", "groups", "@*retired*");
      expect((await flagsByUser(server, plain)).get(u.othello.id)).to.deep.equal([]);
      expect((await messageRow(server, plain)).rendered_content).to.equal("<p>@<em>retired</em></p>");
    });

    it("links only channels the sender may see", async function () {
      await createChannel(u.othello, "Hidden", [u.othello], { invite_only: true });
      const id = await sendToChannel(u.hamlet, "Denmark", "links", "#**Hidden** #**Denmark**");
      const html = (await messageRow(server, id)).rendered_content;
      expect(html).to.contain(`<a class="stream" data-stream-id="${denmark}"`);
      expect(html).not.to.contain('data-stream-id="' + String(denmark + 1000));
      expect(html).to.contain("#<strong>Hidden</strong>");
      const byOthello = (
        await messageRow(server, await sendToChannel(u.othello, "Denmark", "links", "#**Hidden**"))
      ).rendered_content;
      expect(byOthello).to.contain('class="stream"');
    });

    describe("wildcard mentions in big conversations", function () {
      let own: TestRealm;
      let c: Cast;
      let crowd: TestUser[];
      before(async function () {
        own = await server.factory.realm();
        c = cast(own);
        crowd = [];
        for (let i = 0; i < 10; i++) crowd.push(await server.factory.user(own.id, `citizen${i}`));
        // 15 subscribers: at the threshold; 16: above it.
        await createChannel(c.iago, "Fifteen", [...Object.values(c), ...crowd].slice(0, 15));
        await createChannel(c.iago, "Sixteen", [...Object.values(c), ...crowd].slice(0, 16));
      });

      it("needs can_mention_many_users_group above 15 subscribers", async function () {
        expectSuccess(await postToChannel(c.hamlet, "Fifteen", "t", "@**all**"));
        await refused(
          () => postToChannel(c.hamlet, "Sixteen", "t", "@**everyone**"),
          "You do not have permission to use channel wildcard mentions in this channel.",
          "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
        );
        expectSuccess(await postToChannel(c.hamlet, "Sixteen", "t", "@_**all** is silent"));
        expectSuccess(await postToChannel(c.iago, "Sixteen", "t", "@**all**"));
        const members = await systemGroupId(server, own, "role:members");
        await setRealmGroupSetting(server, own.id, "can_mention_many_users_group", members);
        try {
          expectSuccess(await postToChannel(c.hamlet, "Sixteen", "t", "@**channel**"));
        } finally {
          await setRealmGroupSetting(
            server,
            own.id,
            "can_mention_many_users_group",
            await systemGroupId(server, own, "role:administrators"),
          );
        }
      });

      it("needs it above 15 topic participants for @**topic**", async function () {
        const others = [...crowd, c.desdemona, c.iago, c.prospero, c.cordelia];
        for (const person of others) await sendToChannel(person, "Sixteen", "busy", "here");
        // 14 participants and the sender: 15.
        expectSuccess(await postToChannel(c.hamlet, "Sixteen", "busy", "@**topic**"));
        await sendToChannel(c.othello, "Sixteen", "busy", "one more");
        await refused(
          () => postToChannel(c.cordelia, "Sixteen", "busy", "@**topic**"),
          "You do not have permission to use topic wildcard mentions in this topic.",
          "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
        );
        expectSuccess(await postToChannel(c.iago, "Sixteen", "busy", "@**topic**"));
      });
    });
  });

  describe("the full-text index", function () {
    it("indexes each new message's text and topic in the same transaction", async function () {
      const id = await sendToChannel(u.hamlet, "Denmark", "ramparts", "The **ghost** walks at midnight");
      expect(await searchIndex(server, "ghost")).to.include(id);
      expect(await searchIndex(server, "topic:rampart")).to.deep.equal([id]);
      expect(await searchIndex(server, "walking")).to.include(id);
      const dm = await sendDirect(u.hamlet, [u.othello], "A *secret* about the ghost");
      expect(await searchIndex(server, "secret")).to.include(dm);
      // A refused send leaves nothing behind.
      await refused(
        () => postToChannel(u.hamlet, "Denmark", "t\u0001", "unindexable"),
        "Invalid character in topic, at position 2!",
      );
      expect(await searchIndex(server, "unindexable")).to.deep.equal([]);
    });
  });

  it("keeps another subscriber's deactivation in mind", async function () {
    const own = await server.factory.realm();
    const c = cast(own);
    await createChannel(c.hamlet, "Wittenberg", [c.hamlet, c.othello, c.cordelia]);
    await deactivateUser(server, own, c.cordelia);
    const id = await sendToChannel(c.hamlet, "Wittenberg", "t", "c");
    expect(sorted((await flagsByUser(server, id)).keys())).to.deep.equal(ids([c.hamlet, c.othello]));
    await subscribe(c.othello, ["Wittenberg"]);
  });
});
