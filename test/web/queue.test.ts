import { expect } from "chai";
import { ApiError, NetworkError } from "../../src/web/api/errors.js";
import type { ServerEvent } from "../../src/web/api/types.js";
import { ClientState } from "../../src/web/model/client-state.js";
import { LiveQueue, REGISTER_PARAMS } from "../../src/web/live/queue.js";
import { GENERAL, ME, registerState, streamMessage } from "./fixtures.js";
import { FakeServer, FakeTimers, settle } from "./fakes.js";

const POLL_TIMEOUT_MS = 90_000;

const badQueue = (queueId: string) =>
  new ApiError(`Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID", 400, {
    result: "error",
    msg: `Bad event queue ID: ${queueId}`,
    code: "BAD_EVENT_QUEUE_ID",
    queue_id: queueId,
  });

const message = (id: number, eventId: number): ServerEvent => {
  const { flags, ...rest } = streamMessage(id, { topic: "lunch" });
  return { id: eventId, type: "message", message: { ...rest, flags: [] }, flags };
};

/** A queue started against a fake server, Hamlet's register answer first. */
async function started(overrides: Parameters<typeof registerState>[0] = {}) {
  const server = new FakeServer();
  const timers = new FakeTimers();
  const state = new ClientState();
  server.registerAnswers.push(registerState({ queue_id: "q1", last_event_id: 7, ...overrides }));
  const queue = new LiveQueue(state, server, timers);
  await queue.start();
  await settle();
  return { server, timers, state, queue };
}

describe("web client: the event queue (LiveQueue)", function () {
  it("registers as the web client does, loads the state, and polls from register's last event ID", async function () {
    const { server, timers, state, queue } = await started();
    expect(server.registerCalls).to.deep.equal([REGISTER_PARAMS]);
    expect(REGISTER_PARAMS).to.deep.include({
      apply_markdown: true,
      client_gravatar: false,
      slim_presence: true,
    });
    expect(REGISTER_PARAMS.client_capabilities).to.deep.include({
      bulk_message_deletion: true,
      user_settings_object: true,
      empty_topic_name: true,
      simplified_presence_events: true,
      archived_channels: true,
    });
    expect(queue.id).to.equal("q1");
    expect(queue.connection.value).to.equal("live");
    expect(state.myUserId).to.equal(ME);
    expect(server.polls.map((p) => p.params)).to.deep.equal([{ queue_id: "q1", last_event_id: 7 }]);
    // A poll that never answers is given up after 90 s.
    expect(timers.waiting()).to.deep.equal([POLL_TIMEOUT_MS]);
    queue.stop();
  });

  it("applies events in order, advances the last event ID, and tells onEvents of each batch", async function () {
    const { server, timers, state, queue } = await started();
    const batches: number[][] = [];
    queue.onEvents = (events) => batches.push(events.map((e) => e.id));
    server.lastPoll.answer([
      message(120, 8),
      {
        id: 9,
        type: "update_message_flags",
        op: "add",
        operation: "add",
        flag: "read",
        messages: [120],
        all: false,
      },
      { id: 10, type: "heartbeat" },
    ]);
    await settle();
    // The message came, then was read: order mattered.
    expect(state.messages.value(120)!.flags).to.deep.equal(["read"]);
    expect(state.unread.has(120)).to.equal(false);
    expect(server.polls.map((p) => p.params.last_event_id)).to.deep.equal([7, 10]);
    server.lastPoll.answer([]);
    await settle();
    expect(server.polls.map((p) => p.params.last_event_id)).to.deep.equal([7, 10, 10]);
    expect(batches).to.deep.equal([[8, 9, 10]]);
    // Each answered poll's timeout is cleared: only the waiting poll's remains.
    expect(timers.waiting()).to.deep.equal([POLL_TIMEOUT_MS]);
    queue.stop();
  });

  it("registers anew on BAD_EVENT_QUEUE_ID: state reloaded, lists reset, generation bumped", async function () {
    const { server, state, queue } = await started();
    const list = state.lists.get([{ operator: "channel", operand: String(GENERAL) }], ME);
    list.addFetched([101, 102], { oldest: true, newest: true });
    const generation = state.generation.value;
    server.registerAnswers.push(
      registerState({
        queue_id: "q2",
        last_event_id: 3,
        unread_msgs: {
          pms: [],
          streams: [],
          huddles: [],
          mentions: [],
          count: 0,
          old_unreads_missing: false,
        },
      }),
    );
    server.lastPoll.fail(badQueue("q1"));
    await settle();
    expect(server.registerCalls.length).to.equal(2);
    expect(queue.id).to.equal("q2");
    expect(queue.connection.value).to.equal("live");
    expect(state.unread.count).to.equal(0);
    expect(state.generation.value).to.equal(generation + 1);
    expect(list.ids.value).to.deep.equal([]);
    expect(list.foundNewest.value).to.equal(false);
    expect(server.lastPoll.params).to.deep.equal({ queue_id: "q2", last_event_id: 3 });
    queue.stop();
  });

  it("keeps trying to register while the server is down, with backoff", async function () {
    const { server, timers, queue } = await started();
    server.registerAnswers.push(new NetworkError("Failed to fetch"), new NetworkError("Failed to fetch"));
    server.registerAnswers.push(registerState({ queue_id: "q3", last_event_id: 0 }));
    server.lastPoll.fail(badQueue("q1"));
    await settle();
    expect(queue.connection.value).to.equal("reconnecting");
    expect(timers.waiting()).to.deep.equal([1000]);
    timers.fire(1000);
    await settle();
    expect(timers.waiting()).to.deep.equal([2000]);
    timers.fire(2000);
    await settle();
    expect(server.registerCalls.length).to.equal(4);
    expect(queue.id).to.equal("q3");
    expect(queue.connection.value).to.equal("live");
    expect(server.lastPoll.params).to.deep.equal({ queue_id: "q3", last_event_id: 0 });
    queue.stop();
  });

  it("backs off on network errors (1 s, doubling, at most 30 s); retryNow polls at once and starts over", async function () {
    const { server, timers, queue } = await started();
    const sleeps: number[] = [];
    for (let i = 0; i < 7; i++) {
      server.lastPoll.fail(new NetworkError("Failed to fetch"));
      await settle();
      expect(queue.connection.value).to.equal("reconnecting");
      const [sleep] = timers.waiting();
      sleeps.push(sleep!);
      timers.fire(sleep!);
      await settle();
    }
    expect(sleeps).to.deep.equal([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    server.lastPoll.fail(new NetworkError("Failed to fetch"));
    await settle();
    const polls = server.polls.length;
    queue.retryNow();
    await settle();
    expect(server.polls.length).to.equal(polls + 1);
    // A success ends the trouble; the next failure waits a second again.
    server.lastPoll.answer([]);
    await settle();
    expect(queue.connection.value).to.equal("live");
    server.lastPoll.fail(new NetworkError("Failed to fetch"));
    await settle();
    expect(timers.waiting()).to.deep.equal([1000]);
    queue.stop();
  });

  it("waits as long as the server's retry-after says when rate limited", async function () {
    const { server, timers, queue } = await started();
    server.lastPoll.fail(
      new ApiError("API usage exceeded rate limit", "RATE_LIMIT_HIT", 429, { "retry-after": 5.5 }),
    );
    await settle();
    expect(timers.waiting()).to.deep.equal([5500]);
    queue.stop();
  });

  it("gives up a poll that does not answer within 90 s and polls again after a backoff", async function () {
    const { server, timers, queue } = await started();
    timers.fire(POLL_TIMEOUT_MS);
    await settle();
    expect(server.polls[0]!.signal.aborted).to.equal(true);
    expect(timers.waiting()).to.deep.equal([1000]);
    timers.fire(1000);
    await settle();
    expect(server.polls.length).to.equal(2);
    expect(server.lastPoll.params).to.deep.equal({ queue_id: "q1", last_event_id: 7 });
    queue.stop();
  });

  it("repoll abandons the poll under way and polls again at once, still live", async function () {
    const { server, timers, queue } = await started();
    queue.repoll();
    await settle();
    expect(server.polls[0]!.signal.aborted).to.equal(true);
    expect(server.polls.length).to.equal(2);
    expect(queue.connection.value).to.equal("live");
    expect(timers.waiting()).to.deep.equal([POLL_TIMEOUT_MS]);
    queue.stop();
  });

  it("stop aborts the poll and applies nothing more, even an answer already on its way", async function () {
    const { server, timers, state, queue } = await started();
    server.ignoreAborts = true;
    const poll = server.lastPoll;
    queue.stop();
    expect(poll.signal.aborted).to.equal(true);
    poll.answer([message(130, 8)]);
    await settle();
    expect(state.messages.value(130)).to.equal(undefined);
    expect(server.polls.length).to.equal(1);
    expect(timers.waiting()).to.deep.equal([]);
  });

  it("stop during a backoff ends the loop", async function () {
    const { server, timers, queue } = await started();
    server.lastPoll.fail(new NetworkError("Failed to fetch"));
    await settle();
    queue.stop();
    await settle();
    expect(server.polls.length).to.equal(1);
    expect(timers.waiting()).to.deep.equal([]);
  });

  it("an event that fails to apply is reported and skipped; the others are applied and polling goes on", async function () {
    const { server, state, queue } = await started();
    const failures: Array<[string, number]> = [];
    queue.onError = (err, event) => failures.push([(err as Error).name, event.id]);
    server.lastPoll.answer([
      message(140, 8),
      // A flags event without its messages: applying it throws.
      { id: 9, type: "update_message_flags", op: "add", flag: "read" } as unknown as ServerEvent,
      message(141, 10),
    ]);
    await settle();
    expect(failures).to.deep.equal([["TypeError", 9]]);
    expect(state.messages.value(141)!.id).to.equal(141);
    expect(queue.connection.value).to.equal("live");
    expect(server.lastPoll.params).to.deep.equal({ queue_id: "q1", last_event_id: 10 });
    queue.stop();
  });

  it("the first register's failure is the caller's", async function () {
    const server = new FakeServer();
    server.registerAnswers.push(new ApiError("Not logged in", "UNAUTHORIZED", 401, {}));
    const queue = new LiveQueue(new ClientState(), server, new FakeTimers());
    let failure: unknown = null;
    await queue.start().catch((err: unknown) => (failure = err));
    expect((failure as ApiError).code).to.equal("UNAUTHORIZED");
    expect(server.polls.length).to.equal(0);
  });
});
