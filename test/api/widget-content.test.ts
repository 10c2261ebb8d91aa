import { expect } from "chai";
import { createBot, type TestBot } from "../helpers/bots.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Client } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

interface Submessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

/** A bot's zform of choices, as Zulip's bots send it (each choice's reply is what a click sends). */
const ZFORM = {
  widget_type: "zform",
  extra_data: {
    type: "choices",
    heading: "What now?",
    choices: [
      { type: "multiple_choice", short_name: "A", long_name: "Add a task", reply: "add" },
      { type: "multiple_choice", short_name: "B", long_name: "Café break", reply: "break" },
    ],
  },
};
/** The submessage Zulip stores for it: Python's json.dumps of widget_type and extra_data. */
const ZFORM_STORED =
  '{"widget_type": "zform", "extra_data": {"type": "choices", "heading": "What now?", "choices": ' +
  '[{"type": "multiple_choice", "short_name": "A", "long_name": "Add a task", "reply": "add"}, ' +
  '{"type": "multiple_choice", "short_name": "B", "long_name": "Caf\\u00e9 break", "reply": "break"}]}}';

describe("POST /messages widget_content (Zulip's check_widget_content)", function () {
  let server: TestServer;
  let u: Cast;
  let bot: TestBot;
  let channelId: number;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    channelId = await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
    bot = await createBot(u.hamlet, "chooser");
    expectSuccess(
      await bot.client.post("/users/me/subscriptions", { subscriptions: '[{"name":"Denmark"}]' }),
    );
  });
  after(async function () {
    await server.close();
  });

  const count = async (table: "messages" | "submessages") =>
    Number((await server.app.knex(table).count({ n: "*" }))[0]!.n);
  const send = (client: Client, widgetContent: string, content = "Pick one") =>
    client.post("/messages", {
      type: "stream",
      to: channelId,
      topic: "widgets",
      content,
      widget_content: widgetContent,
    });
  const submessagesOf = async (client: Client, id: number) =>
    (expectSuccess(await client.get(`/messages/${id}`)).message as { submessages: Submessage[] }).submessages;

  it("stores a bot's zform as the message's first submessage, in the message event and in fetches", async function () {
    const queue = (await register(u.othello.client, { event_types: ["message"] })).queue_id as string;
    const body = expectSuccess(await send(bot.client, JSON.stringify(ZFORM)));
    expect(body).not.to.have.property("ignored_parameters_unsupported");
    const id = body.id as number;
    const [stored] = await submessagesOf(u.othello.client, id);
    const widget = {
      id: stored!.id,
      message_id: id,
      sender_id: bot.id,
      msg_type: "widget",
      content: ZFORM_STORED,
    };
    expect(await submessagesOf(u.othello.client, id)).to.deep.equal([widget]);
    const event = (await pendingEvents(u.othello.client, queue)).find((e) => e.type === "message")!;
    const message = event.message as { id: number; content: string; submessages: Submessage[] };
    expect(message.id).to.equal(id);
    expect(message.submessages).to.deep.equal([widget]);
    // The content is the message's own; the widget does not replace it.
    expect(message.content).to.contain("Pick one");
  });

  it("keeps only widget_type and extra_data (extra keys of extra_data and choices are Zulip's to keep)", async function () {
    const extra = {
      ...ZFORM,
      ignored: true,
      extra_data: { ...ZFORM.extra_data, choices: [], note: 1 },
    };
    const id = expectSuccess(await send(bot.client, JSON.stringify(extra))).id as number;
    expect((await submessagesOf(bot.client, id))[0]!.content).to.equal(
      '{"widget_type": "zform", "extra_data": {"type": "choices", "heading": "What now?", "choices": [], "note": 1}}',
    );
  });

  it("takes widget_content over a /poll the content starts (Zulip's do_widget_post_save_actions)", async function () {
    const id = expectSuccess(await send(bot.client, JSON.stringify(ZFORM), "/poll Lunch?\nYes\nNo"))
      .id as number;
    const stored = await submessagesOf(bot.client, id);
    expect(stored.map((s) => s.content)).to.deep.equal([ZFORM_STORED]);
  });

  it("works in direct messages too", async function () {
    const id = expectSuccess(
      await bot.client.post("/messages", {
        type: "direct",
        to: JSON.stringify([u.hamlet.id]),
        content: "Choose",
        widget_content: JSON.stringify(ZFORM),
      }),
    ).id as number;
    expect((await submessagesOf(u.hamlet.client, id)).map((s) => s.content)).to.deep.equal([ZFORM_STORED]);
  });

  it("refuses malformed widget_content with Zulip's message, writing nothing", async function () {
    const extraData = (changes: Record<string, unknown>) =>
      JSON.stringify({ widget_type: "zform", extra_data: { ...ZFORM.extra_data, ...changes } });
    const withoutKey = (key: string) => {
      const data: Record<string, unknown> = { ...ZFORM.extra_data };
      delete data[key];
      return JSON.stringify({ widget_type: "zform", extra_data: data });
    };
    const choice = { short_name: "A", long_name: "Add", reply: "add" };
    const cases: Array<[string, string]> = [
      ["{{{{{{", "Widgets: API programmer sent invalid JSON content"],
      ["5", "Widgets: widget_content is not a dict"],
      ["[]", "Widgets: widget_content is not a dict"],
      ['{"color": "red", "foo": "bar", "x": 2}', "Widgets: widget_type is not in widget_content"],
      ['{"widget_type": "whatever"}', "Widgets: extra_data is not in widget_content"],
      ['{"widget_type": "zform", "extra_data": 4}', "Widgets: extra_data is not a dict"],
      ['{"widget_type": "bogus", "extra_data": {}}', "Widgets: unknown widget type: bogus"],
      ['{"widget_type": "poll", "extra_data": {}}', "Widgets: unknown widget type: poll"],
      ['{"widget_type": "zform", "extra_data": {}}', "Widgets: zform is missing type field"],
      [extraData({ type: "bogus" }), "Widgets: unknown zform type: bogus"],
      [withoutKey("heading"), "Widgets: heading key is missing from extra_data"],
      [extraData({ heading: 7 }), 'Widgets: extra_data["heading"] is not a string'],
      [withoutKey("choices"), "Widgets: choices key is missing from extra_data"],
      [extraData({ choices: 99 }), 'Widgets: extra_data["choices"] is not a list'],
      [extraData({ choices: [99] }), 'Widgets: extra_data["choices"][0] is not a dict'],
      [
        extraData({ choices: [choice, { long_name: "foo", reply: "bar" }] }),
        'Widgets: short_name key is missing from extra_data["choices"][1]',
      ],
      [
        extraData({ choices: [{ ...choice, reply: null }] }),
        'Widgets: extra_data["choices"][0]["reply"] is not a string',
      ],
    ];
    const before = { messages: await count("messages"), submessages: await count("submessages") };
    for (const [widgetContent, message] of cases) {
      expectError(await send(bot.client, widgetContent), 400, message);
    }
    expect({ messages: await count("messages"), submessages: await count("submessages") }).to.deep.equal(
      before,
    );
  });

  it("checks the addressee before the widget, as Zulip's check_message does", async function () {
    expectError(
      await bot.client.post("/messages", {
        type: "stream",
        to: "No such channel",
        topic: "t",
        content: "x",
        widget_content: "{{{",
      }),
      400,
      "Channel 'No such channel' does not exist",
      "STREAM_DOES_NOT_EXIST",
    );
  });

  it("accepts widget_content from a person too: Zulip's send_message_backend does not restrict it to bots", async function () {
    // Zulip's own test (test_widgets.py, test_explicit_widget_content) sends it as a human.
    const id = expectSuccess(await send(u.hamlet.client, JSON.stringify(ZFORM))).id as number;
    expect((await submessagesOf(u.othello.client, id))[0]!.sender_id).to.equal(u.hamlet.id);
  });
});
