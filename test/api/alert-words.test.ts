import { expect } from "chai";
import { cast, createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess, type ParamValue } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("alert words", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm: TestRealm = await server.factory.realm();
    const u = cast(realm);
    await createChannel(u.hamlet, "Verona", [u.hamlet, u.othello, u.cordelia]);
    return { realm, u };
  };
  const add = (user: TestUser, words: ParamValue) =>
    user.client.post("/users/me/alert_words", { alert_words: words });
  const remove = (user: TestUser, words: ParamValue) =>
    user.client.delete("/users/me/alert_words", { alert_words: words });
  const list = async (user: TestUser) =>
    expectSuccess(await user.client.get("/users/me/alert_words")).alert_words as string[];
  const flagsOf = async (user: TestUser, messageId: number) => {
    const body = expectSuccess(await user.client.get(`/messages/${messageId}`));
    return (body.message as { flags: string[] }).flags;
  };

  describe("GET, POST and DELETE /users/me/alert_words", function () {
    it("adds stripped words once whatever their case, removes them in any case, and answers the list", async function () {
      const { u } = await fresh();
      expect(await list(u.hamlet)).to.deep.equal([]);
      const added = expectSuccess(await add(u.hamlet, ["one ", "\n two", "three", "", "  "]));
      expect(added.alert_words).to.deep.equal(["one", "two", "three"]);
      expect(
        expectSuccess(await add(u.hamlet, ["ONE", "Four", "FOUR", "multi-word phrase", "☃"])).alert_words,
      ).to.deep.equal(["one", "two", "three", "FOUR", "multi-word phrase", "☃"]);
      const removed = expectSuccess(await remove(u.hamlet, ["Two", "four", "not there"]));
      expect(removed.alert_words).to.deep.equal(["one", "three", "multi-word phrase", "☃"]);
      expect(await list(u.hamlet)).to.deep.equal(["one", "three", "multi-word phrase", "☃"]);
      expect(await list(u.othello)).to.deep.equal([]);
    });

    it("refuses malformed lists and words over 100 characters, changing nothing", async function () {
      const { u } = await fresh();
      expectError(
        await u.hamlet.client.post("/users/me/alert_words"),
        400,
        "Missing 'alert_words' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(await add(u.hamlet, "one"), 400, "alert_words is not valid JSON");
      expectError(await add(u.hamlet, { one: 1 }), 400, "alert_words is not a list");
      expectError(await add(u.hamlet, [1]), 400, "alert_words[0] is not a string");
      expectError(
        await add(u.hamlet, ["ok", "x".repeat(101)]),
        400,
        "alert_words[1] is too long (limit: 100 characters)",
      );
      expectError(await remove(u.hamlet, [null]), 400, "alert_words[0] is not a string");
      expect(await list(u.hamlet)).to.deep.equal([]);
      expect(expectSuccess(await add(u.hamlet, ["y".repeat(100)])).alert_words).to.have.lengthOf(1);
    });

    it("sends the whole list after every change; state plus events equals a fresh register", async function () {
      const { u } = await fresh();
      const other = await register(u.othello.client, { event_types: ["alert_words"] });
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await add(u.hamlet, ["castle", "moat"]));
        expectSuccess(await remove(u.hamlet, ["Castle"]));
        expectSuccess(await add(u.hamlet, ["MOAT"]));
      });
      expect(events).to.deep.equal([
        { type: "alert_words", alert_words: ["castle", "moat"], id: events[0]!.id },
        { type: "alert_words", alert_words: ["moat"], id: events[1]!.id },
        { type: "alert_words", alert_words: ["moat"], id: events[2]!.id },
      ]);
      expect(await pendingEvents(u.othello.client, other.queue_id as string)).to.deep.equal([]);
    });
  });

  describe("the has_alert_word flag", function () {
    it("follows Zulip's matching rules: any case, whole words, not inside URLs", async function () {
      const { u } = await fresh();
      expectSuccess(await add(u.hamlet, ["one", "two", "three", "multi-word word", "☃"]));
      const alerts = async (content: string) =>
        (await flagsOf(u.hamlet, await sendToChannel(u.othello, "Verona", "castle", content))).includes(
          "has_alert_word",
        );
      // Zulip's test_alert_flags cases.
      expect(await alerts("Normal alert one time")).to.equal(true);
      expect(await alerts("Normal alert one")).to.equal(true);
      expect(await alerts("two normal alerts")).to.equal(true);
      expect(await alerts("This one? should alert")).to.equal(true);
      expect(await alerts("Definitely time for three.")).to.equal(true);
      expect(await alerts("One two three o'clock")).to.equal(true);
      expect(await alerts("One o'clock")).to.equal(true);
      expect(await alerts("Case of ONE, won't stop me")).to.equal(true);
      expect(await alerts("Don't alert on http://t.co/one/ URLs")).to.equal(false);
      expect(await alerts("Don't alert on http://t.co/one URLs")).to.equal(false);
      expect(await alerts("Don't alert on clone, twofold or seventytwofold")).to.equal(false);
      // Phrases, other scripts, Markdown around a word.
      expect(await alerts("a MULTI-WORD WORD here")).to.equal(true);
      expect(await alerts("snow ☃ man")).to.equal(true);
      expect(await alerts("**one**")).to.equal(true);
      expect(await alerts("(`three`)")).to.equal(true);
      expect(await alerts("multi-word wordy")).to.equal(false);
    });

    it("flags only the recipients whose words a message has, direct messages and the sender's own included", async function () {
      const { u } = await fresh();
      expectSuccess(await add(u.hamlet, ["castle"]));
      expectSuccess(await add(u.othello, ["moat"]));
      expectSuccess(await add(u.cordelia, ["castle"]));
      const both = await sendToChannel(u.hamlet, "Verona", "walls", "the castle and the moat");
      expect(await flagsOf(u.hamlet, both)).to.include("has_alert_word");
      expect(await flagsOf(u.othello, both)).to.deep.equal(["has_alert_word"]);
      expect(await flagsOf(u.cordelia, both)).to.deep.equal(["has_alert_word"]);
      const direct = await sendDirect(u.othello, [u.hamlet], "meet at the castle");
      expect(await flagsOf(u.hamlet, direct)).to.deep.equal(["has_alert_word"]);
      expect(await flagsOf(u.othello, direct)).to.not.include("has_alert_word");
      // The alerted narrow finds them.
      const body = expectSuccess(
        await u.othello.client.get("/messages", {
          anchor: "newest",
          num_before: 10,
          num_after: 0,
          narrow: [{ operator: "is", operand: "alerted" }],
        }),
      );
      expect((body.messages as Array<{ id: number }>).map((m) => m.id)).to.deep.equal([both]);
    });

    it("follows changes to the words at once, and the content through edits", async function () {
      const { u } = await fresh();
      expectSuccess(await add(u.hamlet, ["alert"]));
      const id = await sendToChannel(u.othello, "Verona", "castle", "this is an ALERT for you");
      expect(await flagsOf(u.hamlet, id)).to.include("has_alert_word");
      const queue = await register(u.hamlet.client, { event_types: ["update_message"] });
      expectSuccess(await u.othello.client.patch(`/messages/${id}`, { content: "sorry false alarm" }));
      expect(await flagsOf(u.hamlet, id)).to.not.include("has_alert_word");
      const [edit] = await pendingEvents(u.hamlet.client, queue.queue_id as string);
      expect(edit!.flags).to.not.include("has_alert_word");
      expectSuccess(await u.othello.client.patch(`/messages/${id}`, { content: "new alert for you" }));
      expect(await flagsOf(u.hamlet, id)).to.include("has_alert_word");
      // Removing the word stops the alerts; adding a new one starts them.
      expectSuccess(await remove(u.hamlet, ["alert"]));
      expect(
        await flagsOf(u.hamlet, await sendToChannel(u.othello, "Verona", "castle", "alert")),
      ).to.not.include("has_alert_word");
      expectSuccess(await add(u.hamlet, ["moat"]));
      expect(await flagsOf(u.hamlet, await sendToChannel(u.othello, "Verona", "castle", "moat"))).to.include(
        "has_alert_word",
      );
    });
  });
});
