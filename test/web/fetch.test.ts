import { expect } from "chai";
import type { Message } from "../../src/web/api/types.js";
import { loadInitial, loadNewer, loadOlder } from "../../src/web/live/fetch.js";
import type { MessagesAnswer } from "../../src/web/live/api.js";
import { ClientState } from "../../src/web/model/client-state.js";
import type { Narrow } from "../../src/web/model/narrow.js";
import { GENERAL, ME, registerState, streamMessage } from "./fixtures.js";
import { FakeServer, settle } from "./fakes.js";

const NARROW: Narrow = [
  { operator: "channel", operand: String(GENERAL) },
  { operator: "topic", operand: "lunch" },
];

function setUp() {
  const state = new ClientState();
  state.load(registerState());
  const server = new FakeServer();
  const list = state.lists.get(NARROW, ME);
  return {
    state,
    server,
    list,
    messages: (params: Parameters<FakeServer["messages"]>[0]) => server.messages(params),
  };
}

const answer = (messages: Message[], found: Partial<MessagesAnswer> = {}): MessagesAnswer => ({
  messages,
  found_oldest: false,
  found_newest: false,
  found_anchor: true,
  anchor: messages[0]?.id ?? 0,
  ...found,
});

const lunch = (...ids: number[]) => ids.map((id) => streamMessage(id, { topic: "lunch" }));

describe("web client: fetching messages (live/fetch.ts)", function () {
  it("opens a list at the first unread message, as GET /messages is asked by the web client", async function () {
    const { state, server, list, messages } = setUp();
    const done = loadInitial(state, list, null, messages);
    expect(list.loading.value).to.equal("initial");
    expect(server.messageCalls).to.deep.equal([
      {
        narrow: [
          { operator: "channel", operand: GENERAL },
          { operator: "topic", operand: "lunch" },
        ],
        anchor: "first_unread",
        num_before: 50,
        num_after: 50,
        apply_markdown: true,
        client_gravatar: false,
        include_anchor: true,
      },
    ]);
    server.messageAnswers[0]!.resolve(answer(lunch(99, 101, 102), { anchor: 101, found_newest: true }));
    await done;
    expect(list.ids.value).to.deep.equal([99, 101, 102]);
    expect([list.foundOldest.value, list.foundNewest.value, list.loading.value]).to.deep.equal([
      false,
      true,
      null,
    ]);
    expect(list.anchor.value).to.equal(101);
    expect(state.messages.value(102)!.subject).to.equal("lunch");
  });

  it("opens at a `near` message, and at the newest when nothing is unread", async function () {
    const { state, server, list, messages } = setUp();
    const near = loadInitial(state, list, 55, messages);
    expect(server.messageCalls[0]!.anchor).to.equal("55");
    server.messageAnswers[0]!.resolve(answer(lunch(54, 56), { found_anchor: false, anchor: 55 }));
    await near;
    expect(list.anchor.value).to.equal(55);

    const other = state.lists.get([{ operator: "is", operand: "starred" }], ME);
    const none = loadInitial(state, other, null, messages);
    // No unread message: Zulip's first_unread anchor lands past the newest.
    server.messageAnswers[1]!.resolve(
      answer(lunch(70, 71), { found_anchor: false, anchor: 10_000_000_000_000_000, found_newest: true }),
    );
    await none;
    expect(other.anchor.value).to.equal(71);
  });

  it("loads older and newer batches from the ends of the range, until found", async function () {
    const { state, server, list, messages } = setUp();
    const first = loadInitial(state, list, null, messages);
    server.messageAnswers[0]!.resolve(answer(lunch(200, 210)));
    await first;
    const older = loadOlder(state, list, messages);
    expect(server.messageCalls[1]).to.deep.include({ anchor: "200", num_before: 100, num_after: 0 });
    server.messageAnswers[1]!.resolve(answer(lunch(150, 200), { found_oldest: true }));
    await older;
    const newer = loadNewer(state, list, messages);
    expect(server.messageCalls[2]).to.deep.include({ anchor: "210", num_before: 0, num_after: 100 });
    server.messageAnswers[2]!.resolve(answer(lunch(210, 220), { found_newest: true }));
    await newer;
    expect(list.ids.value).to.deep.equal([150, 200, 210, 220]);
    // Both ends found: nothing more is asked.
    await loadOlder(state, list, messages);
    await loadNewer(state, list, messages);
    expect(server.messageCalls.length).to.equal(3);
  });

  it("asks once at a time per list", async function () {
    const { state, server, list, messages } = setUp();
    const first = loadInitial(state, list, null, messages);
    await loadInitial(state, list, null, messages);
    expect(server.messageCalls.length).to.equal(1);
    server.messageAnswers[0]!.resolve(answer(lunch(1)));
    await first;
  });

  it("a message that arrives while the list is fetched joins it when the answer reaches the newest", async function () {
    const { state, server, list, messages } = setUp();
    const done = loadInitial(state, list, null, messages);
    state.addMessage(streamMessage(300, { topic: "lunch" }));
    server.messageAnswers[0]!.resolve(answer(lunch(298, 299), { found_newest: true }));
    await done;
    expect(list.ids.value).to.deep.equal([298, 299, 300]);
  });

  it("drops an answer from before the queue was registered anew, without disturbing the new fetch", async function () {
    const { state, server, list, messages } = setUp();
    const old = loadInitial(state, list, null, messages);
    // The queue is registered anew meanwhile: the list starts over and the view fetches again.
    state.load(registerState());
    const fresh = loadInitial(state, list, null, messages);
    expect(server.messageCalls.length).to.equal(2);
    server.messageAnswers[0]!.resolve(answer(lunch(5, 6), { found_newest: true }));
    await old;
    expect(list.ids.value).to.deep.equal([]);
    // The new fetch is still under way: no third fetch may start beside it.
    expect(list.loading.value).to.equal("initial");
    await loadInitial(state, list, null, messages);
    expect(server.messageCalls.length).to.equal(2);
    server.messageAnswers[1]!.resolve(answer(lunch(7, 8), { found_newest: true }));
    await fresh;
    expect(list.ids.value).to.deep.equal([7, 8]);
    expect(list.loading.value).to.equal(null);
  });

  it("a failed fetch says why on the list and rejects", async function () {
    const { state, server, list, messages } = setUp();
    const done = loadInitial(state, list, null, messages);
    server.messageAnswers[0]!.reject(new Error("Invalid narrow operator: unknown channel"));
    let failure: unknown = null;
    await done.catch((err: unknown) => (failure = err));
    expect((failure as Error).message).to.equal("Invalid narrow operator: unknown channel");
    expect(list.error.value).to.equal("Invalid narrow operator: unknown channel");
    expect(list.loading.value).to.equal(null);
    await settle();
  });
});
