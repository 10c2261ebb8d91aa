import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

interface Msg {
  id: number;
  flags: string[];
  content: string;
  subject: string;
  match_content?: string;
  match_subject?: string;
  [key: string]: unknown;
}

describe("GET /messages", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let verona: number;
  let secret: number;
  let vault: number;
  const m: Record<string, number> = {};
  let known: Set<number>;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    verona = await createChannel(u.hamlet, "Verona", [u.hamlet, u.othello]);
    secret = await createChannel(u.hamlet, "Secret", [u.hamlet, u.othello], { invite_only: true });
    vault = await createChannel(u.hamlet, "Vault", [u.hamlet], {
      invite_only: true,
      history_public_to_subscribers: false,
    });
    m.v1 = await sendToChannel(u.hamlet, "Verona", "castle", "the castle walls are running");
    m.v2 = await sendToChannel(u.othello, "Verona", "garden", "see https://example.com now");
    m.v3 = await sendToChannel(u.hamlet, "Verona", "✔ done", "finished");
    m.v4 = await sendToChannel(u.hamlet, "Verona", "Castle", `hi @**${u.othello.fullName}**`);
    m.s1 = await sendToChannel(u.hamlet, "Secret", "plot", "secret castle plan");
    m.p1 = await sendToChannel(u.hamlet, "Vault", "old", "before othello joined");
    m.d1 = await sendDirect(u.hamlet, [u.othello], "hello othello");
    m.d2 = await sendDirect(u.othello, [u.hamlet], "hello hamlet");
    m.d3 = await sendDirect(u.hamlet, [u.othello, u.cordelia], "group hello");
    m.d4 = await sendDirect(u.hamlet, [u.hamlet], "note to self");
    // Othello joins the protected-history channel after p1.
    expectSuccess(
      await u.hamlet.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: "Vault" }],
        principals: [u.othello.id],
      }),
    );
    m.p2 = await sendToChannel(u.hamlet, "Vault", "new", "after othello joined");
    known = new Set(Object.values(m));
  });
  after(async function () {
    await server.close();
  });

  async function fetch(user: TestUser, params: Params): Promise<Record<string, unknown>> {
    return expectSuccess(await user.client.get("/messages", params)) as Record<string, unknown>;
  }
  /** The fixture messages in the narrow, as keys of `m`, in ID order. */
  async function narrowed(user: TestUser, narrow: object, extra: Params = {}): Promise<string[]> {
    const body = await fetch(user, { anchor: "newest", num_before: 1000, num_after: 0, narrow, ...extra });
    const byId = new Map(Object.entries(m).map(([k, v]) => [v, k]));
    return (body.messages as Msg[]).filter((x) => known.has(x.id)).map((x) => byId.get(x.id)!);
  }
  const keys = (...names: string[]) => names;

  describe("operators", function () {
    it("channel / stream by name and ID, and negated", async function () {
      expect(await narrowed(u.othello, [{ operator: "channel", operand: "Verona" }])).to.deep.equal(
        keys("v1", "v2", "v3", "v4"),
      );
      expect(await narrowed(u.othello, [["stream", String(verona)]])).to.deep.equal(
        keys("v1", "v2", "v3", "v4"),
      );
      expect(await narrowed(u.othello, [{ operator: "stream", operand: verona }])).to.deep.equal(
        keys("v1", "v2", "v3", "v4"),
      );
      expect(
        await narrowed(u.othello, [{ operator: "channel", operand: "Verona", negated: true }]),
      ).to.deep.equal(keys("s1", "d1", "d2", "d3", "p2"));
    });

    it("channels:public and web-public", async function () {
      expect(await narrowed(u.othello, [["channels", "public"]])).to.deep.equal(keys("v1", "v2", "v3", "v4"));
      expect(await narrowed(u.othello, [["channels", "web-public"]])).to.deep.equal([]);
      expectError(
        await u.othello.client.get("/messages", {
          anchor: "newest",
          num_before: 5,
          num_after: 0,
          narrow: [["channels", "private"]],
        }),
        400,
        "Invalid narrow operator: unknown channels operand private",
        "BAD_NARROW",
      );
    });

    it("topic is case-insensitive; negated topic", async function () {
      expect(
        await narrowed(u.othello, [
          ["channel", "Verona"],
          ["topic", "CASTLE"],
        ]),
      ).to.deep.equal(keys("v1", "v4"));
      expect(
        await narrowed(u.othello, [
          ["channel", "Verona"],
          { operator: "topic", operand: "castle", negated: true },
        ]),
      ).to.deep.equal(keys("v2", "v3"));
    });

    it("sender by email, ID and me; negated", async function () {
      expect(await narrowed(u.othello, [["sender", u.othello.email]])).to.deep.equal(keys("v2", "d2"));
      expect(await narrowed(u.othello, [{ operator: "sender", operand: u.othello.id }])).to.deep.equal(
        keys("v2", "d2"),
      );
      expect(await narrowed(u.othello, [["sender", "me"]])).to.deep.equal(keys("v2", "d2"));
      expect(
        await narrowed(u.othello, [
          { operator: "sender", operand: "me", negated: true },
          ["channel", "Verona"],
        ]),
      ).to.deep.equal(keys("v1", "v3", "v4"));
    });

    it("dm / pm-with: one-to-one both directions, groups, self, negated", async function () {
      expect(await narrowed(u.othello, [["dm", u.hamlet.email]])).to.deep.equal(keys("d1", "d2"));
      expect(await narrowed(u.othello, [{ operator: "pm-with", operand: [u.hamlet.id] }])).to.deep.equal(
        keys("d1", "d2"),
      );
      expect(await narrowed(u.othello, [["pm_with", `${u.hamlet.email},${u.cordelia.email}`]])).to.deep.equal(
        keys("d3"),
      );
      expect(await narrowed(u.hamlet, [{ operator: "dm", operand: [u.hamlet.id] }])).to.deep.equal(
        keys("d4"),
      );
      expect(await narrowed(u.othello, [["dm", `${u.hamlet.email},${u.iago.email}`]])).to.deep.equal([]);
      expect(
        await narrowed(u.othello, [{ operator: "dm", operand: [u.hamlet.id], negated: true }, ["is", "dm"]]),
      ).to.deep.equal(keys("d3"));
    });

    it("dm-including and group-pm-with", async function () {
      expect(await narrowed(u.othello, [["dm-including", u.cordelia.email]])).to.deep.equal(keys("d3"));
      expect(await narrowed(u.othello, [{ operator: "dm-including", operand: u.hamlet.id }])).to.deep.equal(
        keys("d1", "d2", "d3"),
      );
      expect(await narrowed(u.othello, [["dm-including", u.othello.email]])).to.deep.equal(
        keys("d1", "d2", "d3"),
      );
      expect(await narrowed(u.othello, [["group-pm-with", u.hamlet.email]])).to.deep.equal(keys("d3"));
    });

    it("is: dm, private, mentioned, resolved, unread, starred, alerted, followed, muted", async function () {
      expect(await narrowed(u.othello, [["is", "dm"]])).to.deep.equal(keys("d1", "d2", "d3"));
      expect(await narrowed(u.othello, [["is", "private"]])).to.deep.equal(keys("d1", "d2", "d3"));
      expect(await narrowed(u.othello, [["is", "mentioned"]])).to.deep.equal(keys("v4"));
      expect(await narrowed(u.othello, [["is", "resolved"]])).to.deep.equal(keys("v3"));
      expect(
        await narrowed(u.othello, [
          { operator: "is", operand: "resolved", negated: true },
          ["channel", "Verona"],
        ]),
      ).to.deep.equal(keys("v1", "v2", "v4"));
      // The test client does not mark its own messages read (read_by_sender).
      expect(await narrowed(u.othello, [["is", "unread"]])).to.deep.equal(
        keys("v1", "v2", "v3", "v4", "s1", "d1", "d2", "d3", "p2"),
      );
      await server.app
        .knex("user_messages")
        .where({ user_id: u.othello.id, message_id: m.d2 })
        .update({
          flags: server.app.knex.raw("flags | 1"),
        });
      expect(await narrowed(u.othello, [{ operator: "is", operand: "unread", negated: true }])).to.deep.equal(
        keys("d2"),
      );
      expect(await narrowed(u.othello, [["is", "starred"]])).to.deep.equal([]);
      expect(await narrowed(u.othello, [["is", "alerted"]])).to.deep.equal([]);
      await server.app
        .knex("user_messages")
        .where({ user_id: u.othello.id, message_id: m.v2 })
        .update({
          flags: server.app.knex.raw("flags | 2 | 512"),
        });
      expect(await narrowed(u.othello, [["is", "starred"]])).to.deep.equal(keys("v2"));
      expect(await narrowed(u.othello, [["is", "alerted"]])).to.deep.equal(keys("v2"));
      const starred = (await fetch(u.othello, { anchor: m.v2!, num_before: 0, num_after: 0 }))
        .messages as Msg[];
      expect(starred[0]!.flags).to.deep.equal(["starred", "has_alert_word"]);
      await server.app.knex("user_topics").insert({
        user_id: u.othello.id,
        stream_id: verona,
        topic_name: "garden",
        topic_key: "garden",
        visibility_policy: 3,
        last_updated: 0,
      });
      expect(await narrowed(u.othello, [["is", "followed"]])).to.deep.equal(keys("v2"));
      await server.app.knex("user_topics").insert({
        user_id: u.othello.id,
        stream_id: verona,
        topic_name: "castle",
        topic_key: "castle",
        visibility_policy: 1,
        last_updated: 0,
      });
      expect(await narrowed(u.othello, [["is", "muted"]])).to.deep.equal(keys("v1", "v4"));
      expect(
        await narrowed(u.othello, [
          ["in", "home"],
          ["channel", "Verona"],
        ]),
      ).to.deep.equal(keys("v2", "v3"));
      expect(
        await narrowed(u.othello, [
          ["in", "all"],
          ["channel", "Verona"],
        ]),
      ).to.deep.equal(keys("v1", "v2", "v3", "v4"));
      // first_unread skips muted topics: v1 and v4 are muted, v2 is the first unread
      // (once the channel's creation notice is read).
      await server.app
        .knex("user_messages")
        .where({ user_id: u.othello.id })
        .where("message_id", "<", m.v1!)
        .update({ flags: server.app.knex.raw("flags | 1") });
      const body = await fetch(u.othello, {
        anchor: "first_unread",
        num_before: 0,
        num_after: 0,
        narrow: [["channel", "Verona"]],
      });
      expect(body.anchor).to.equal(m.v2);
      await server.app.knex("user_topics").where({ user_id: u.othello.id }).delete();
    });

    it("has: link, image, attachment, reaction", async function () {
      expect(await narrowed(u.othello, [["has", "link"]])).to.deep.equal(keys("v2"));
      expect(await narrowed(u.othello, [["has", "image"]])).to.deep.equal([]);
      expect(await narrowed(u.othello, [["has", "attachment"]])).to.deep.equal([]);
      expect(await narrowed(u.othello, [["has", "reaction"]])).to.deep.equal([]);
      await server.app.knex("reactions").insert({
        message_id: m.d1,
        user_id: u.othello.id,
        emoji_name: "smile",
        emoji_code: "1f604",
        reaction_type: "unicode_emoji",
      });
      expect(await narrowed(u.othello, [["has", "reaction"]])).to.deep.equal(keys("d1"));
      expect(
        await narrowed(u.othello, [{ operator: "has", operand: "reaction", negated: true }, ["is", "dm"]]),
      ).to.deep.equal(keys("d2", "d3"));
      const [d1] = (await fetch(u.othello, { anchor: m.d1!, num_before: 0, num_after: 0 })).messages as Msg[];
      expect(d1!.reactions).to.deep.equal([
        {
          emoji_name: "smile",
          emoji_code: "1f604",
          reaction_type: "unicode_emoji",
          user_id: u.othello.id,
        },
      ]);
    });

    it("id, near, with", async function () {
      expect(await narrowed(u.othello, [["id", String(m.v2)]])).to.deep.equal(keys("v2"));
      expect(
        await narrowed(u.othello, [{ operator: "id", operand: m.v2!, negated: true }, ["channel", "Verona"]]),
      ).to.deep.equal(keys("v1", "v3", "v4"));
      expect(
        await narrowed(u.othello, [
          ["channel", "Verona"],
          ["near", String(m.v2)],
        ]),
      ).to.have.length(4);
      // `with` replaces the conversation by the message's own.
      expect(
        await narrowed(u.othello, [
          ["channel", "Secret"],
          ["topic", "x"],
          ["with", String(m.v1)],
        ]),
      ).to.deep.equal(keys("v1", "v4"));
      expect(await narrowed(u.othello, [{ operator: "with", operand: m.d1! }])).to.deep.equal(
        keys("d1", "d2"),
      );
      // Not accessible: kept if the narrow is a conversation, else an error.
      expect(
        await narrowed(u.cordelia, [
          ["channel", "Verona"],
          ["topic", "garden"],
          ["with", String(m.s1)],
        ]),
      ).to.deep.equal(keys("v2"));
      expectError(
        await u.cordelia.client.get("/messages", {
          anchor: "newest",
          num_before: 5,
          num_after: 0,
          narrow: [["with", String(m.s1)]],
        }),
        400,
        "Invalid narrow operator: Invalid 'with' operator",
        "BAD_NARROW",
      );
      expectError(
        await u.othello.client.get("/messages", {
          anchor: "newest",
          num_before: 5,
          num_after: 0,
          narrow: [
            ["with", String(m.v1)],
            ["with", String(m.v2)],
          ],
        }),
        400,
        "Invalid narrow operator combination: Duplicate 'with' operators.",
        "BAD_NARROW",
      );
    });

    it("search: stemmed full text with highlighting", async function () {
      const body = await fetch(u.othello, {
        anchor: "newest",
        num_before: 10,
        num_after: 0,
        narrow: [["search", "castle"]],
      });
      const found = (body.messages as Msg[]).filter((x) => known.has(x.id));
      expect(found.map((x) => x.id)).to.deep.equal([m.v1, m.v4, m.s1]);
      const v1 = found[0]!;
      expect(v1.match_content).to.equal('<p>the <span class="highlight">castle</span> walls are running</p>');
      expect(v1.match_subject).to.equal('<span class="highlight">castle</span>');
      const run = await fetch(u.othello, {
        anchor: "newest",
        num_before: 10,
        num_after: 0,
        narrow: [["search", "run"]],
      });
      expect((run.messages as Msg[])[0]!.match_content).to.contain('<span class="highlight">running</span>');
      expect(
        await narrowed(u.othello, [
          ["channel", "Verona"],
          ["search", "castle walls"],
        ]),
      ).to.deep.equal(keys("v1"));
      // Zulip ignores `negated` on search terms.
      expect(
        await narrowed(u.othello, [{ operator: "search", operand: "castle", negated: true }]),
      ).to.deep.equal(keys("v1", "v4", "s1"));
      // Channel history is searched for a non-subscriber too.
      const history = await fetch(u.cordelia, {
        anchor: "newest",
        num_before: 10,
        num_after: 0,
        narrow: [
          ["channel", "Verona"],
          ["search", "walls"],
        ],
      });
      const [walls] = history.messages as Msg[];
      expect(walls).to.include({ id: m.v1 });
      expect(walls!.flags).to.deep.equal(["read", "historical"]);
      expect(walls!.match_content).to.contain('<span class="highlight">walls</span>');
      const plain = await fetch(u.othello, { anchor: "newest", num_before: 1, num_after: 0 });
      expect((plain.messages as Msg[])[0]).not.to.have.property("match_content");
    });
  });

  describe("anchors and ranges", function () {
    const inVerona = () => [["channel", "Verona"]];
    it("integer anchor with both sides", async function () {
      const body = await fetch(u.othello, { anchor: m.v2!, num_before: 1, num_after: 1, narrow: inVerona() });
      expect((body.messages as Msg[]).map((x) => x.id)).to.deep.equal([m.v1, m.v2, m.v3]);
      expect(body).to.include({
        anchor: m.v2,
        found_anchor: true,
        found_oldest: false,
        found_newest: false,
        history_limited: false,
      });
    });
    it("newest, oldest and include_anchor=false", async function () {
      const newest = await fetch(u.othello, {
        anchor: "newest",
        num_before: 2,
        num_after: 5,
        narrow: inVerona(),
      });
      expect((newest.messages as Msg[]).map((x) => x.id)).to.deep.equal([m.v3, m.v4]);
      expect(newest).to.include({
        anchor: 10000000000000000,
        found_anchor: false,
        found_newest: true,
        found_oldest: false,
      });
      const oldest = await fetch(u.othello, {
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        narrow: inVerona(),
      });
      expect(oldest).to.include({ anchor: 0, found_oldest: true, found_newest: true, found_anchor: false });
      const excl = await fetch(u.othello, {
        anchor: m.v2!,
        num_before: 0,
        num_after: 1,
        include_anchor: false,
        narrow: inVerona(),
      });
      expect((excl.messages as Msg[]).map((x) => x.id)).to.deep.equal([m.v3]);
      expect(excl).to.include({ found_anchor: false, found_newest: false });
    });
    it("first_unread and use_first_unread_anchor", async function () {
      const dm = [["dm", u.hamlet.email]];
      const body = await fetch(u.othello, {
        anchor: "first_unread",
        num_before: 0,
        num_after: 0,
        narrow: dm,
      });
      expect(body.anchor).to.equal(m.d1);
      const legacy = await fetch(u.othello, {
        use_first_unread_anchor: true,
        num_before: 0,
        num_after: 0,
        narrow: dm,
      });
      expect(legacy.anchor).to.equal(m.d1);
      // The legacy flag wins over anchor (zulip-terminal sends anchor=0 with it), even a bad one.
      for (const anchor of [0, "oldest", "bogus"]) {
        const both = await fetch(u.othello, {
          anchor,
          use_first_unread_anchor: true,
          num_before: 0,
          num_after: 0,
          narrow: dm,
        });
        expect(both.anchor, String(anchor)).to.equal(m.d1);
      }
      const none = await fetch(u.othello, {
        anchor: "first_unread",
        num_before: 0,
        num_after: 0,
        narrow: [
          ["channel", "Verona"],
          ["topic", "no such topic"],
        ],
      });
      expect(none.anchor).to.equal(10000000000000000);
    });
    it("first_unread skips muted channels unless the narrow names the channel", async function () {
      await server.app
        .knex("user_messages")
        .where({ user_id: u.othello.id })
        .where("message_id", "<", m.v1!)
        .update({ flags: server.app.knex.raw("flags | 1") });
      const first = async (narrow: object) =>
        (await fetch(u.othello, { anchor: "first_unread", num_before: 0, num_after: 0, narrow })).anchor;
      expect(await first([])).to.equal(m.v1);
      const mute = async (value: boolean) => {
        expectSuccess(
          await u.othello.client.post("/users/me/subscriptions/properties", {
            subscription_data: [{ stream_id: verona, property: "is_muted", value }],
          }),
        );
      };
      await mute(true);
      try {
        expect(await first([])).to.equal(m.s1);
        expect(await first([["channel", "Verona"]])).to.equal(m.v1);
      } finally {
        await mute(false);
      }
    });
    it("clamps negative and huge anchors", async function () {
      expect((await fetch(u.othello, { anchor: "-5", num_before: 0, num_after: 1 })).anchor).to.equal(0);
      expect(
        (await fetch(u.othello, { anchor: "99999999999999999999", num_before: 1, num_after: 0 })).anchor,
      ).to.equal(10000000000000000);
    });
  });

  describe("visibility", function () {
    it("a non-subscriber reads public history with read+historical flags, but nothing else", async function () {
      const body = await fetch(u.cordelia, {
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        narrow: [["channel", "Verona"]],
      });
      const msgs = (body.messages as Msg[]).filter((x) => known.has(x.id));
      expect(msgs.map((x) => x.id)).to.deep.equal([m.v1, m.v2, m.v3, m.v4]);
      for (const msg of msgs) expect(msg.flags).to.deep.equal(["read", "historical"]);
      expect(await narrowed(u.cordelia, [])).to.deep.equal(keys("d3"));
    });
    it("private channels: non-subscribers and guests see nothing", async function () {
      expect(await narrowed(u.cordelia, [["channel", "Secret"]])).to.deep.equal([]);
      expect(await narrowed(u.cordelia, [{ operator: "channel", operand: secret }])).to.deep.equal([]);
      expect(await narrowed(u.othello, [{ operator: "channel", operand: secret }])).to.deep.equal(keys("s1"));
      expect(await narrowed(u.cordelia, [["search", "castle"]])).to.deep.equal([]);
      expect(await narrowed(u.polonius, [["channel", "Verona"]])).to.deep.equal([]);
      expect(await narrowed(u.polonius, [["channels", "public"]])).to.deep.equal([]);
      expect(await narrowed(u.iago, [["channel", "Secret"]])).to.deep.equal([]);
      expectError(await u.cordelia.client.get(`/messages/${m.s1}`), 400, "Invalid message(s)");
      expectError(await u.polonius.client.get(`/messages/${m.v1}`), 400, "Invalid message(s)");
    });
    it("protected history: a late subscriber sees only messages after joining", async function () {
      expect(await narrowed(u.othello, [["channel", "Vault"]])).to.deep.equal(keys("p2"));
      expect(
        await narrowed(u.othello, [{ operator: "channel", operand: vault }, ["search", "othello"]]),
      ).to.deep.equal(keys("p2"));
      expect(await narrowed(u.hamlet, [["channel", "Vault"]])).to.deep.equal(keys("p1", "p2"));
      expectError(await u.othello.client.get(`/messages/${m.p1}`), 400, "Invalid message(s)");
    });
  });

  describe("message shape", function () {
    it("fields, apply_markdown, client_gravatar, display_recipient", async function () {
      const body = await fetch(u.othello, {
        anchor: m.d3!,
        num_before: 0,
        num_after: 0,
        apply_markdown: false,
      });
      const [msg] = body.messages as Msg[];
      expect(msg).to.include({
        id: m.d3,
        type: "private",
        content: "group hello",
        content_type: "text/x-markdown",
        subject: "",
      });
      expect(msg!.display_recipient).to.deep.equal(
        [u.hamlet, u.othello, u.cordelia]
          .sort((a, b) => a.id - b.id)
          .map((x) => ({ id: x.id, email: x.email, full_name: x.fullName, is_mirror_dummy: false })),
      );
      expect(msg).not.to.have.property("rendered_content");
      const html = (await fetch(u.othello, { anchor: m.v1!, num_before: 0, num_after: 0 })).messages as Msg[];
      expect(html[0]).to.include({
        content: "<p>the castle walls are running</p>",
        content_type: "text/html",
        display_recipient: "Verona",
        stream_id: verona,
        subject: "castle",
      });
      expect(html[0]!.flags).to.deep.equal([]);
      expect(html[0]!.reactions).to.deep.equal([]);
      expect(html[0]).to.have.all.keys(
        "id",
        "type",
        "sender_id",
        "sender_email",
        "sender_full_name",
        "sender_realm_str",
        "avatar_url",
        "client",
        "content",
        "content_type",
        "recipient_id",
        "display_recipient",
        "subject",
        "topic_links",
        "timestamp",
        "is_me_message",
        "reactions",
        "submessages",
        "stream_id",
        "flags",
      );
    });
    it("client_gravatar and the empty topic", async function () {
      await server.app
        .knex("users")
        .where({ id: u.hamlet.id })
        .update({ avatar_source: "G", email_address_visibility: 1 });
      server.app.realms.invalidate(realm.id);
      const one = async (params: Params) =>
        (
          (await fetch(u.othello, { anchor: m.v1!, num_before: 0, num_after: 0, ...params }))
            .messages as Msg[]
        )[0]!;
      expect((await one({})).avatar_url).to.equal(null);
      expect((await one({ client_gravatar: false })).avatar_url).to.be.a("string");
      const empty = await sendToChannel(u.hamlet, "Verona", "", "no topic");
      const get = async (allow: boolean) =>
        (
          (
            await fetch(u.othello, {
              anchor: empty,
              num_before: 0,
              num_after: 0,
              allow_empty_topic_name: allow,
            })
          ).messages as Msg[]
        )[0]!.subject;
      expect(await get(true)).to.equal("");
      expect(await get(false)).to.equal("general chat");
    });
    it("a guest reads the history of a channel it is subscribed to", async function () {
      expect(await narrowed(u.polonius, [["channel", "Verona"]])).to.deep.equal([]);
      expectSuccess(
        await u.hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Verona" }],
          principals: [u.polonius.id],
        }),
      );
      expect(await narrowed(u.polonius, [["channel", "Verona"]])).to.deep.equal(keys("v1", "v2", "v3", "v4"));
      expect(await narrowed(u.polonius, [["channels", "public"]])).to.deep.equal([]);
    });
    it("GET /messages/{id}: message and raw_content", async function () {
      const body = expectSuccess(await u.othello.client.get(`/messages/${m.v1}`));
      expect(body.raw_content).to.equal("the castle walls are running");
      expect((body.message as Msg).content).to.equal("<p>the castle walls are running</p>");
      expect((body.message as Msg).flags).to.deep.equal([]);
      const raw = expectSuccess(await u.othello.client.get(`/messages/${m.v1}`, { apply_markdown: false }));
      expect((raw.message as Msg).content).to.equal("the castle walls are running");
      const historical = expectSuccess(await u.cordelia.client.get(`/messages/${m.v1}`));
      expect((historical.message as Msg).flags).to.deep.equal(["read", "historical"]);
      expectError(await u.othello.client.get("/messages/999999"), 400, "Invalid message(s)");
    });
  });

  describe("errors", function () {
    const get = (params: Params) => u.othello.client.get("/messages", params);
    it("range parameters", async function () {
      expectError(await get({ num_before: 1, num_after: 1 }), 400, "Missing 'anchor' argument.");
      expectError(await get({ anchor: "sideways", num_before: 1, num_after: 1 }), 400, "Invalid anchor");
      expectError(
        await get({ anchor: "newest", num_before: 3000, num_after: 2001 }),
        400,
        "Too many messages requested (maximum 5000).",
      );
      expectError(
        await get({ anchor: "10", num_before: 1, num_after: 1, include_anchor: false }),
        400,
        "The anchor can only be excluded at an end of the range",
      );
      expectError(
        await get({ anchor: "newest", num_after: 1 }),
        400,
        "Missing 'num_before' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(
        await get({ anchor: "newest", num_before: -1, num_after: 1 }),
        400,
        "num_before is too small",
      );
    });
    it("narrow errors (BAD_NARROW with desc)", async function () {
      const cases: Array<[object, string]> = [
        [[["channel", "Nowhere"]], "unknown channel Nowhere"],
        [[["bogus", "x"]], "unknown operator bogus"],
        [[["is", "bogus"]], "unknown 'is' operand bogus"],
        [[["has", "bogus"]], "unknown 'has' operand bogus"],
        [[["in", "bogus"]], "unknown 'in' operand bogus"],
        [[["sender", "nobody@example.com"]], "unknown user nobody@example.com"],
        [[["dm-including", "nobody@example.com"]], "unknown user nobody@example.com"],
        [[{ operator: "dm", operand: [u.hamlet.id, 99999] }], `unknown user in [${u.hamlet.id}, 99999]`],
        [[["id", "abc"]], "Invalid message ID"],
        [[["id", "99999999"]], "Invalid message ID"],
        [[["dm", "nobody@example.com"]], "unknown user in nobody@example.com"],
        [[{ operator: "channel", operand: 99999 }], "unknown channel 99999"],
        [
          [
            ["channel", "Verona"],
            ["dm", u.hamlet.email],
          ],
          "No message can be both a channel message and direct message",
        ],
      ];
      for (const [narrow, desc] of cases) {
        const res = await get({ anchor: "newest", num_before: 1, num_after: 0, narrow });
        expectError(res, 400, `Invalid narrow operator: ${desc}`, "BAD_NARROW");
        expect(res.body).to.include({ desc });
      }
      expectError(
        await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [{ operand: "x" }] }),
        400,
        "operator is missing",
      );
      expectError(
        await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [{ operator: "x" }] }),
        400,
        "operand is missing",
      );
      expectError(
        await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: [["a"]] }),
        400,
        "element is not a string pair",
      );
      expectError(
        await get({ anchor: "newest", num_before: 1, num_after: 0, narrow: "{" }),
        400,
        "narrow is not valid JSON",
      );
    });
  });

  describe("GET /messages/matches_narrow", function () {
    it("returns only matching IDs the user received, with highlights", async function () {
      const body = expectSuccess(
        await u.othello.client.get("/messages/matches_narrow", {
          msg_ids: [m.v1, m.v2, m.s1, m.p1, m.d1],
          narrow: [["search", "castle"]],
        }),
      );
      expect(body.messages).to.deep.equal({
        [String(m.v1)]: {
          match_content: '<p>the <span class="highlight">castle</span> walls are running</p>',
          match_subject: '<span class="highlight">castle</span>',
        },
        [String(m.s1)]: {
          match_content: '<p>secret <span class="highlight">castle</span> plan</p>',
          match_subject: "plot",
        },
      });
      const plain = expectSuccess(
        await u.othello.client.get("/messages/matches_narrow", {
          msg_ids: [m.v1, m.v2, m.d1],
          narrow: [["channel", "Verona"]],
        }),
      );
      expect(plain.messages).to.deep.equal({
        [String(m.v1)]: { match_content: "<p>the castle walls are running</p>", match_subject: "castle" },
        [String(m.v2)]: {
          match_content: (
            (await fetch(u.othello, { anchor: m.v2!, num_before: 0, num_after: 0 })).messages as Msg[]
          )[0]!.content,
          match_subject: "garden",
        },
      });
      // A user who never received the message gets nothing (no shared history here).
      const cordelia = expectSuccess(
        await u.cordelia.client.get("/messages/matches_narrow", {
          msg_ids: [m.v1],
          narrow: [["channel", "Verona"]],
        }),
      );
      expect(cordelia.messages).to.deep.equal({});
      expectError(
        await u.othello.client.get("/messages/matches_narrow", { narrow: [] }),
        400,
        "Missing 'msg_ids' argument",
        "REQUEST_VARIABLE_MISSING",
      );
    });
  });

  describe("message_ids (feature level 300)", function () {
    const byIds = (user: TestUser, ids: number[], extra: Params = {}) =>
      user.client.get("/messages", { message_ids: ids, ...extra });
    const idsOf = (body: Record<string, unknown>) => (body.messages as Msg[]).map((x) => x.id);

    it("returns the requested messages the user may read, ascending, without range fields", async function () {
      const body = expectSuccess(await byIds(u.othello, [m.d2!, m.v1!, m.s1!, m.v1!, 99999999]));
      expect(idsOf(body)).to.deep.equal([m.v1, m.s1, m.d2]);
      expect(body).to.include({
        found_anchor: false,
        found_oldest: false,
        found_newest: false,
        history_limited: false,
      });
      expect(body).not.to.have.property("anchor");
      expect((body.messages as Msg[])[0]!.content).to.equal("<p>the castle walls are running</p>");
      const raw = expectSuccess(await byIds(u.othello, [m.v1!], { apply_markdown: false }));
      expect((raw.messages as Msg[])[0]!.content).to.equal("the castle walls are running");
    });

    it("filters by the narrow, which also opens a public channel's history", async function () {
      const castle = expectSuccess(
        await byIds(u.othello, [m.v1!, m.v2!, m.v4!], { narrow: [["topic", "castle"]] }),
      );
      expect(idsOf(castle)).to.deep.equal([m.v1, m.v4]);
      // Cordelia never received Verona's messages: only with a narrow naming the channel.
      expect(idsOf(expectSuccess(await byIds(u.cordelia, [m.v1!, m.s1!])))).to.deep.equal([]);
      const history = expectSuccess(await byIds(u.cordelia, [m.v1!], { narrow: [["channel", "Verona"]] }));
      expect(idsOf(history)).to.deep.equal([m.v1]);
      expect((history.messages as Msg[])[0]!.flags).to.deep.equal(["read", "historical"]);
      // ... and never a private channel's it cannot read.
      const secretIds = expectSuccess(await byIds(u.cordelia, [m.s1!], { narrow: [["channel", "Secret"]] }));
      expect(idsOf(secretIds)).to.deep.equal([]);
    });

    it("refuses range parameters alongside, and negative or malformed IDs", async function () {
      const parameters =
        "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor";
      for (const extra of [
        { anchor: "newest" },
        { num_before: 1 },
        { num_after: 2 },
        { use_first_unread_anchor: true },
      ]) {
        const res = await byIds(u.othello, [m.v1!], extra);
        expectError(res, 400, `Unsupported parameter combination: ${parameters}`);
        expect(res.body.parameters, JSON.stringify(extra)).to.equal(parameters);
      }
      // Zero counts and include_anchor are no range.
      const zero = expectSuccess(
        await byIds(u.othello, [m.v1!], { num_before: 0, num_after: 0, include_anchor: false }),
      );
      expect(idsOf(zero)).to.deep.equal([m.v1]);
      expectError(await byIds(u.othello, [-1]), 400, "message_ids[0] is too small");
      expectError(
        await u.othello.client.get("/messages", { message_ids: "[1," }),
        400,
        "message_ids is not valid JSON",
      );
    });
  });
});
