import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

interface Submessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

describe("submessages (widgets: polls and to-do lists)", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.cordelia]);
    await createChannel(u.othello, "Secret", [u.othello, u.hamlet], { invite_only: true });
  });
  after(async function () {
    await server.close();
  });

  const submit = (user: TestUser, messageId: number, content: unknown, params: Params = {}) =>
    user.client.post("/submessage", {
      message_id: messageId,
      msg_type: "widget",
      content: typeof content === "string" ? content : JSON.stringify(content),
      ...params,
    });
  const submessagesOf = async (user: TestUser, id: number) =>
    (expectSuccess(await user.client.get(`/messages/${id}`)).message as { submessages: Submessage[] })
      .submessages;
  const vote = (key: string, value = 1) => ({ type: "vote", key, vote: value });

  it("starts a poll from a /poll message, carried by the message event and fetches", async function () {
    const queue = (await register(u.othello.client, { event_types: ["message"] })).queue_id as string;
    const id = await sendToChannel(
      u.hamlet,
      "Denmark",
      "lunch",
      "/poll What's for lunch?\n- Pizza\n* Salad\nSoup\n\n",
    );
    const widget = {
      id: (await submessagesOf(u.hamlet, id))[0]!.id,
      message_id: id,
      sender_id: u.hamlet.id,
      msg_type: "widget",
      content:
        '{"widget_type": "poll", "extra_data": {"question": "What\'s for lunch?", "options": ["Pizza", "Salad", "Soup"]}}',
    };
    expect(await submessagesOf(u.othello, id)).to.deep.equal([widget]);
    const event = (await pendingEvents(u.othello.client, queue)).find((e) => e.type === "message")!;
    expect((event.message as { submessages: Submessage[] }).submessages).to.deep.equal([widget]);
    const page = expectSuccess(
      await u.othello.client.get("/messages", { anchor: id, num_before: 0, num_after: 0 }),
    );
    expect((page.messages as Array<{ submessages: Submessage[] }>)[0]!.submessages).to.deep.equal([widget]);
  });

  it("stores widgets as Zulip does: Python's JSON, to-do tasks with descriptions, no widget otherwise", async function () {
    const poll = await sendToChannel(u.hamlet, "Denmark", "w", "/poll\nCafé\nTea");
    expect((await submessagesOf(u.hamlet, poll))[0]!.content).to.equal(
      '{"widget_type": "poll", "extra_data": {"question": "", "options": ["Caf\\u00e9", "Tea"]}}',
    );
    const todo = await sendDirect(u.hamlet, [u.othello], "/todo Groceries\n- Milk: 2 liters\n- Bread");
    expect((await submessagesOf(u.othello, todo))[0]!.content).to.equal(
      '{"widget_type": "todo", "extra_data": {"task_list_title": "Groceries", "tasks": ' +
        '[{"task": "Milk", "desc": "2 liters"}, {"task": "Bread", "desc": ""}]}}',
    );
    for (const content of ["/pollster what", "hello /poll", "/Poll x", "/zform"]) {
      const id = await sendToChannel(u.hamlet, "Denmark", "w", content);
      expect(await submessagesOf(u.hamlet, id), content).to.deep.equal([]);
    }
  });

  it("takes readers' votes and options, in order, and tells everyone who can see the message", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "vote", "/poll Best play?\nHamlet\nLear");
    const queues = new Map<TestUser, string>();
    for (const user of [u.hamlet, u.othello, u.cordelia, u.iago]) {
      queues.set(user, (await register(user.client, { event_types: ["submessage"] })).queue_id as string);
    }
    const content = JSON.stringify(vote("canned,1"));
    expectSuccess(await submit(u.othello, id, content));
    expectSuccess(await submit(u.cordelia, id, { type: "new_option", option: "Othello", idx: 1 }));
    const list = await submessagesOf(u.hamlet, id);
    expect(list.map((s) => [s.sender_id, s.msg_type])).to.deep.equal([
      [u.hamlet.id, "widget"],
      [u.othello.id, "widget"],
      [u.cordelia.id, "widget"],
    ]);
    expect(list[1]!.content).to.equal(content);
    for (const [user, queue] of queues) {
      const events = (await pendingEvents(user.client, queue)).filter((e) => e.type === "submessage");
      if (user === u.iago) {
        expect(events, user.email).to.deep.equal([]);
        continue;
      }
      expect(events, user.email).to.have.lengthOf(2);
      expect(events[0]).to.deep.include({
        type: "submessage",
        msg_type: "widget",
        message_id: id,
        submessage_id: list[1]!.id,
        sender_id: u.othello.id,
        content,
      });
      expect(Object.keys(events[0]!).sort()).to.deep.equal(
        ["content", "id", "message_id", "msg_type", "sender_id", "submessage_id", "type"].sort(),
      );
    }
  });

  it("checks poll and to-do data as Zulip does; only the author edits the question or title", async function () {
    const poll = await sendToChannel(u.hamlet, "Denmark", "checks", "/poll Q\nA");
    const bad: Array<[unknown, string]> = [
      ["not json", "Invalid json for submessage"],
      [[1], "poll data is not a dict"],
      [{ key: "x" }, "type key is missing from poll data"],
      [{ type: 1 }, 'poll data["type"] is not a string'],
      [{ type: "bogus" }, "Unknown type for poll data: bogus"],
      [vote("canned,0", 2), 'Invalid poll data["vote"]'],
      [{ type: "vote", key: 5, vote: 1 }, 'poll data["key"] is not a string'],
      [{ type: "vote", key: "canned,0" }, "vote key is missing from poll data"],
      [{ ...vote("canned,0"), extra: true }, "Unexpected arguments: extra"],
      [{ type: "new_option", option: "B", idx: 1001 }, 'poll data["idx"] is too large'],
      [{ type: "new_option", option: "B", idx: -1 }, 'poll data["idx"] is too small'],
      [{ type: "question", question: "Other?" }, "You can't edit a question unless you are the author."],
    ];
    for (const [content, msg] of bad) expectError(await submit(u.othello, poll, content), 400, msg);
    expectSuccess(await submit(u.hamlet, poll, { type: "question", question: "Other?" }));

    const todo = await sendToChannel(u.hamlet, "Denmark", "checks", "/todo Chores\nDishes");
    const task = { type: "new_task", key: 1, task: "Laundry", desc: "", completed: false };
    expectSuccess(await submit(u.othello, todo, task));
    expectSuccess(await submit(u.othello, todo, { type: "strike", key: "0,canned" }));
    expectError(
      await submit(u.othello, todo, { type: "new_task", key: 2, task: "x", desc: "" }),
      400,
      "completed key is missing from todo data",
    );
    expectError(
      await submit(u.othello, todo, { type: "new_task_list_title", title: "Mine" }),
      400,
      "You can't edit the task list title unless you are the author.",
    );
    expectError(await submit(u.othello, todo, { type: "vote" }), 400, "Unknown type for todo data: vote");
    expect(await submessagesOf(u.hamlet, todo)).to.have.lengthOf(3);
    expect(await submessagesOf(u.hamlet, poll)).to.have.lengthOf(2);
  });

  it("lets only the sender start a subconversation on a plain message", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "plain", "no widget here");
    expectError(await submit(u.othello, id, {}), 400, "You cannot attach a submessage to this message.");
    expectSuccess(await submit(u.hamlet, id, { anything: "goes" }, { msg_type: "whatever" }));
    expectSuccess(await submit(u.othello, id, {}));
    expect((await submessagesOf(u.hamlet, id)).map((s) => s.msg_type)).to.deep.equal(["whatever", "widget"]);
  });

  it("refuses messages the user cannot read or change, and missing parameters", async function () {
    const secret = await sendToChannel(u.othello, "Secret", "x", "/poll hush\nA");
    expectError(await submit(u.cordelia, secret, vote("canned,0")), 400, "Invalid message(s)");
    expectError(await submit(u.cordelia, 99999999, vote("canned,0")), 400, "Invalid message(s)");
    expectError(
      await u.othello.client.post("/submessage", { message_id: secret, content: "{}" }),
      400,
      "Missing 'msg_type' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await submit(u.othello, secret, {}, { message_id: "x" }),
      400,
      "message_id is not an integer",
    );
    // A message of an archived channel can be read, not changed.
    const archive = await createChannel(u.hamlet, "Attic", [u.hamlet, u.othello]);
    const old = await sendToChannel(u.hamlet, "Attic", "x", "/poll dusty\nA");
    expectSuccess(await u.iago.client.delete(`/streams/${archive}`));
    expectError(await submit(u.othello, old, vote("canned,0")), 400, "Invalid message(s)");
    expect(await submessagesOf(u.othello, secret)).to.have.lengthOf(1);
  });

  it("deletes a message's submessages with it", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "gone", "/poll soon gone\nA");
    expectSuccess(await submit(u.othello, id, vote("canned,0")));
    expectSuccess(await u.iago.client.delete(`/messages/${id}`));
    expect(
      await server.app.knex("submessages").where({ message_id: id }).count<[{ n: number }]>("id as n"),
    ).to.deep.equal([{ n: 0 }]);
  });

  it("register plus submessage events equals a fresh register", async function () {
    const id = await sendToChannel(u.hamlet, "Denmark", "parity", "/poll parity\nA");
    await verifyRegisterParity(u.othello.client, {}, async () => {
      expectSuccess(await submit(u.othello, id, vote("canned,0")));
    });
  });
});
