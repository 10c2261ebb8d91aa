import { expect } from "chai";
import { encodeEvents } from "../../src/events/wire-json.js";
import { presentEvent } from "../../src/events/flavours.js";
import { encodeWithRawJson } from "../../src/lib/raw-json.js";
import type { ChatEvent, QueueOptions, WireEvent } from "../../src/wire/events.js";
import { queueOptions } from "../helpers/queue-options.js";

const OPTIONS = queueOptions({ applyMarkdown: true });

const EVENT = {
  type: "message",
  message: {
    id: 7,
    type: "stream",
    subject: "",
    content: "**hi**",
    rendered_content: "<p><strong>hi</strong></p>",
    avatar_url: "https://example.test/a.png",
  },
  _hints: { emptyTopicDisplayName: "general chat", senderAvatarComputable: true },
} as unknown as ChatEvent;

const present = (options: QueueOptions, userId: number, extra?: Record<string, unknown>) =>
  presentEvent(EVENT, { userId, queueId: `q${userId}`, options, extra }) as WireEvent;

describe("message events for many queues", function () {
  it("are shaped once per kind of client, each recipient keeping its own flags", function () {
    const hamlet = present(OPTIONS, 1, { flags: ["mentioned"] });
    const ophelia = present(OPTIONS, 2, { flags: ["read"] });
    const plain = present({ ...OPTIONS, applyMarkdown: false }, 3);
    expect(hamlet.message).to.equal(ophelia.message);
    expect(plain.message).to.not.equal(hamlet.message);
    expect(hamlet.flags).to.deep.equal(["mentioned"]);
    expect(ophelia.flags).to.deep.equal(["read"]);
    expect(plain.flags).to.deep.equal([]);
    expect(hamlet.message).to.deep.include({
      content: "<p><strong>hi</strong></p>",
      subject: "general chat",
    });
    expect(plain.message).to.deep.include({ content: "**hi**", subject: "general chat" });
    expect(hamlet.message).to.not.have.property("rendered_content");
  });

  it("share a frozen message: a change meant for one queue throws instead of reaching all", function () {
    const hamlet = present(OPTIONS, 1).message as Record<string, unknown>;
    expect(() => {
      hamlet.subject = "only for Hamlet";
    }).to.throw(TypeError);
    expect((present(OPTIONS, 2).message as Record<string, unknown>).subject).to.equal("general chat");
  });

  it("are encoded once: two polls' answers share the message's bytes and parse as before", function () {
    const hamlet = present(OPTIONS, 1, { flags: ["mentioned"] });
    const ophelia = present(OPTIONS, 2, { flags: ["read"] });
    const heartbeat: WireEvent = { type: "heartbeat" };
    const first = encodeEvents([
      { id: 4, event: hamlet },
      { id: 5, event: heartbeat },
    ]);
    const second = encodeEvents([{ id: 0, event: ophelia }]);
    const shared = first.chunks.filter((chunk) => second.chunks.includes(chunk));
    expect(shared.some((chunk) => chunk.toString().includes("<strong>hi</strong>"))).to.equal(true);
    const parse = (body: Record<string, unknown>) =>
      JSON.parse(encodeWithRawJson(body)!.toString("utf8")) as Record<string, unknown>;
    expect(parse({ events: first })).to.deep.equal({
      events: [
        { ...hamlet, id: 4 },
        { type: "heartbeat", id: 5 },
      ],
    });
    expect(parse({ events: second, queue_id: "q" })).to.deep.equal({
      events: [{ ...ophelia, id: 0 }],
      queue_id: "q",
    });
    expect(parse({ events: encodeEvents([]) })).to.deep.equal({ events: [] });
  });

  it("encode shared frozen flags once, and arrays that may change each time", function () {
    const parse = (body: Record<string, unknown>) =>
      JSON.parse(encodeWithRawJson(body)!.toString("utf8")) as { events: Array<Record<string, unknown>> };
    const shared = Object.freeze(["mentioned"]);
    const mutable = ["read"];
    const events = [
      { id: 1, event: present(OPTIONS, 1, { flags: shared }) },
      { id: 2, event: present(OPTIONS, 2, { flags: shared }) },
      { id: 3, event: present(OPTIONS, 3, { flags: mutable }) },
    ];
    expect(parse({ events: encodeEvents(events) }).events.map((e) => e.flags)).to.deep.equal([
      ["mentioned"],
      ["mentioned"],
      ["read"],
    ]);
    mutable.push("starred");
    const again = parse({ events: encodeEvents(events) }).events;
    expect(again.map((e) => e.flags)).to.deep.equal([["mentioned"], ["mentioned"], ["read", "starred"]]);
    expect(again.map((e) => e.id)).to.deep.equal([1, 2, 3]);
  });
});
