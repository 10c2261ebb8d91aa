import { expect } from "chai";
import type { Message } from "../../src/web/api/types.js";
import type { MessagesAnswer } from "../../src/web/live/api.js";
import { initialParams, loadInitial } from "../../src/web/live/fetch.js";
import { Prefetch } from "../../src/web/live/prefetch.js";
import { ClientState } from "../../src/web/model/client-state.js";
import type { Narrow } from "../../src/web/model/narrow.js";
import { FakeServer, settle } from "./fakes.js";
import { GENERAL, ME, registerState, streamMessage } from "./fixtures.js";

const NARROW: Narrow = [{ operator: "channel", operand: String(GENERAL) }];

const answer = (messages: Message[], found: Partial<MessagesAnswer> = {}): MessagesAnswer => ({
  messages,
  found_oldest: true,
  found_newest: false,
  found_anchor: true,
  anchor: messages[0]?.id ?? 0,
  ...found,
});

describe("web client: the first view's messages, fetched beside the register (live/prefetch.ts)", function () {
  it("answers loadInitial's question once with the prefetched answer, then fetches what followed it", async function () {
    const server = new FakeServer();
    const prefetch = new Prefetch((params) => server.messages(params));
    prefetch.start(initialParams(NARROW, null));
    expect(server.messageCalls).to.have.lengthOf(1);
    // Register happens meanwhile; then the view asks.
    const state = new ClientState();
    state.load(registerState());
    const list = state.lists.get(NARROW, ME);
    const opening = loadInitial(state, list, null, prefetch.messages);
    expect(server.messageCalls, "not asked twice").to.have.lengthOf(1);
    server.messageAnswers[0]!.resolve(answer([streamMessage(10), streamMessage(11)], { found_newest: true }));
    await settle();
    // Read before the queue existed: a message sent in between would be in neither, so
    // what follows the last one is asked for at once.
    expect(server.messageCalls).to.have.lengthOf(2);
    expect(server.messageCalls[1]).to.include({ anchor: "11", num_before: 0, num_after: 100 });
    server.messageAnswers[1]!.resolve(answer([streamMessage(11), streamMessage(12)], { found_newest: true }));
    await opening;
    expect(list.ids.value).to.deep.equal([10, 11, 12]);
    expect(list.foundNewest.value).to.equal(true);
  });

  it("an empty prefetched view asks for the newest messages again", async function () {
    const server = new FakeServer();
    const prefetch = new Prefetch((params) => server.messages(params));
    prefetch.start(initialParams(NARROW, null));
    const state = new ClientState();
    state.load(registerState());
    const list = state.lists.get(NARROW, ME);
    const opening = loadInitial(state, list, null, prefetch.messages);
    server.messageAnswers[0]!.resolve(answer([], { found_newest: true, found_anchor: false }));
    await settle();
    expect(server.messageCalls[1]).to.include({ anchor: "newest", num_before: 50 });
    server.messageAnswers[1]!.resolve(answer([streamMessage(20)], { found_newest: true }));
    await opening;
    expect(list.ids.value).to.deep.equal([20]);
  });

  it("an answer fetched after the register is used as it is", async function () {
    const server = new FakeServer();
    const prefetch = new Prefetch((params) => server.messages(params));
    const state = new ClientState();
    state.load(registerState());
    const list = state.lists.get(NARROW, ME);
    const opening = loadInitial(state, list, null, prefetch.messages);
    server.messageAnswers[0]!.resolve(answer([streamMessage(10)], { found_newest: true }));
    await opening;
    expect(server.messageCalls).to.have.lengthOf(1);
    expect(list.foundNewest.value).to.equal(true);
  });

  it("another question (the view changed) goes to the server, and the prefetched answer is dropped", function () {
    const server = new FakeServer();
    const prefetch = new Prefetch((params) => server.messages(params));
    prefetch.start(initialParams(NARROW, null));
    const other = initialParams([{ operator: "is", operand: "starred" }], null);
    void prefetch.messages(other);
    expect(server.messageCalls).to.have.lengthOf(2);
    void prefetch.messages(initialParams(NARROW, null));
    expect(server.messageCalls, "the prefetched answer is used once at most").to.have.lengthOf(3);
  });

  it("a prefetch whose answer fails and is never used reports nothing", async function () {
    const server = new FakeServer();
    const prefetch = new Prefetch((params) => server.messages(params));
    prefetch.start(initialParams(NARROW, null));
    server.messageAnswers[0]!.reject(new Error("offline"));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
