// Coalesced answers (src/events/queue.ts): a queue answered with events less than its window
// ago holds its next answer until the window ends, so one answer carries several commits'
// events under load, while an idle queue is answered at once.
import { expect } from "chai";
import { systemClock } from "../../src/clock.js";
import { EventHub } from "../../src/events/hub.js";
import { COALESCE_MS, EventQueue, type QueuedEvent } from "../../src/events/queue.js";
import { silentLogger } from "../../src/logger.js";
import { queueOptions } from "../helpers/queue-options.js";

const OPTIONS = queueOptions();

/** A window long enough to tell "held" from "answered at once" on a loaded machine. */
const WINDOW_MS = 150;

function newQueue(windowMs = WINDOW_MS, id = "q"): EventQueue {
  const queue = new EventQueue(id, 1, 1, OPTIONS, Date.now());
  queue.coalesceMs = windowMs;
  return queue;
}

const message = (n: number) => ({ type: "message", n });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Answers a first poll with one event, acknowledged: the queue's window opens. Returns when it was pushed. */
async function answerFirst(queue: EventQueue): Promise<number> {
  const first = queue.wait(60_000);
  queue.push(message(1));
  const answeredAt = performance.now();
  queue.acknowledge((await first).at(-1)!.id);
  return answeredAt;
}

/** The poll's answer and when it came (ms after `since`), or null if not answered within `ms`. */
async function answerWithin(
  poll: Promise<QueuedEvent[]>,
  ms: number,
  since = performance.now(),
): Promise<{ events: QueuedEvent[]; afterMs: number } | null> {
  let timer: NodeJS.Timeout | undefined;
  const answered = poll.then((events) => ({ events, afterMs: performance.now() - since }));
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([answered, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the microtasks queued so far (a wake-up "at once") have run. */
const afterMicrotasks = () => new Promise<void>((resolve) => setImmediate(resolve));

function newHub(): EventHub {
  return new EventHub(
    {
      heartbeatMs: 60_000,
      gcIntervalMs: 60_000,
      maxQueueEvents: 1000,
      maxQueuesPerUser: 10,
      maxParkedPollsPerUser: 10,
      maxTotalEvents: 100_000,
    },
    systemClock,
    silentLogger,
  );
}

describe("coalesced event queue answers", function () {
  it("answers a poll on an idle queue at once (in the push's microtask)", async function () {
    const queue = newQueue();
    const poll = queue.wait(60_000);
    queue.push(message(1));
    let answer: QueuedEvent[] | null = null;
    void poll.then((events) => (answer = events));
    await afterMicrotasks();
    expect(answer).to.not.equal(null);
    expect(answer!.map((queued) => queued.id)).to.deep.equal([0]);
  });

  it("answers at once again once the window has passed", async function () {
    const queue = newQueue(30);
    await answerFirst(queue);
    await sleep(60);
    const second = queue.wait(60_000);
    queue.push(message(2));
    let answer: QueuedEvent[] | null = null;
    void second.then((events) => (answer = events));
    await afterMicrotasks();
    expect(answer!.map((queued) => queued.id)).to.deep.equal([1]);
  });

  it("holds a busy queue's next answer to the end of its window and sends every event pushed meanwhile", async function () {
    const queue = newQueue();
    const answeredAt = await answerFirst(queue);
    const second = queue.wait(60_000);
    queue.push(message(2));
    await sleep(10);
    queue.push(message(3));
    queue.push(message(4));
    const answer = await answerWithin(second, WINDOW_MS * 10, answeredAt);
    expect(answer, "answered").to.not.equal(null);
    expect(answer!.events.map((queued) => queued.id)).to.deep.equal([1, 2, 3]);
    // The bound: not before the window ends (less a millisecond of timer resolution), nor long after.
    expect(answer!.afterMs).to.be.at.least(WINDOW_MS - 2);
    expect(answer!.afterMs).to.be.below(WINDOW_MS * 5);
  });

  it("answers each held queue when its own window ends, whatever order they were held in", async function () {
    // Twice the usual window: the two windows end 240 ms apart, so the bound below leaves
    // 120 ms for a busy machine and still tells them apart.
    const window = WINDOW_MS * 2;
    const early = newQueue(window, "early");
    const late = newQueue(window, "late");
    const earlyAnsweredAt = await answerFirst(early);
    await sleep(window * 0.8);
    await answerFirst(late);
    // The later window is held first: the earlier one must not wait for it.
    const lateSecond = late.wait(60_000);
    late.push(message(2));
    const earlySecond = early.wait(60_000);
    early.push(message(2));
    const answer = await answerWithin(earlySecond, window * 10, earlyAnsweredAt);
    expect(answer!.events.map((queued) => queued.id)).to.deep.equal([1]);
    expect(answer!.afterMs).to.be.below(window * 1.4);
    expect((await lateSecond).map((queued) => queued.id)).to.deep.equal([1]);
  });

  it("answers a heartbeat at once even within the window, with the held events", async function () {
    const queue = newQueue();
    await answerFirst(queue);
    const second = queue.wait(60_000);
    queue.push(message(2));
    queue.push({ type: "heartbeat" });
    let answer: QueuedEvent[] | null = null;
    void second.then((events) => (answer = events));
    await afterMicrotasks();
    expect(answer!.map((queued) => [queued.id, queued.event.type])).to.deep.equal([
      [1, "message"],
      [2, "heartbeat"],
    ]);
  });

  it("sends a parked poll its heartbeat after the heartbeat interval, within a window or not", async function () {
    const queue = newQueue(10_000);
    await answerFirst(queue);
    const started = performance.now();
    const answer = await answerWithin(queue.wait(40), 5000, started);
    expect(answer!.events.map((queued) => queued.event.type)).to.deep.equal(["heartbeat"]);
    expect(answer!.afterMs).to.be.below(2000);
  });

  it("a window of 0 never holds an answer", async function () {
    const queue = newQueue(0);
    for (let n = 0; n < 3; n++) {
      const poll = queue.wait(60_000);
      queue.push(message(n));
      let answer: QueuedEvent[] | null = null;
      void poll.then((events) => (answer = events));
      await afterMicrotasks();
      expect(answer!.map((queued) => queued.id)).to.deep.equal([n]);
      queue.acknowledge(n);
    }
  });

  it("loses, duplicates and reorders nothing across coalesced answers", async function () {
    const queue = newQueue(5);
    const total = 400;
    let pushed = 0;
    const pushing = (async () => {
      while (pushed < total) {
        // Bursts of 1-4 events (a commit's), a few milliseconds apart.
        for (let k = 1 + (pushed % 4); k > 0 && pushed < total; k--) queue.push(message(pushed++));
        await sleep(pushed % 3);
      }
    })();
    const received: number[] = [];
    let answers = 0;
    let last = -1;
    while (received.length < total) {
      queue.acknowledge(last);
      const events = await queue.wait(60_000);
      answers++;
      for (const queued of events) received.push(queued.id);
      if (events.length > 0) last = events.at(-1)!.id;
    }
    await pushing;
    expect(received).to.deep.equal(Array.from({ length: total }, (_, n) => n));
    expect(answers, "answers carry several bursts").to.be.below(total);
  });

  it("a poll that goes away while held leaves its events for the next poll", async function () {
    const queue = newQueue();
    await answerFirst(queue);
    const gone = queue.wait(60_000);
    queue.push(message(2));
    queue.finishWait([]); // the client went away
    expect(await gone).to.deep.equal([]);
    const next = await answerWithin(queue.wait(60_000), WINDOW_MS * 10);
    expect(next!.events.map((queued) => queued.id)).to.deep.equal([1]);
  });

  it("a held answer to a poll whose events were acknowledged meanwhile waits for new events", async function () {
    const queue = newQueue(40);
    await answerFirst(queue);
    const replaced = queue.wait(60_000);
    queue.push(message(2));
    // A newer poll acknowledges event 1 (the client got it elsewhere) and parks.
    queue.acknowledge(1);
    const newer = queue.wait(60_000);
    expect(await replaced).to.deep.equal([]);
    expect(await answerWithin(newer, 120)).to.equal(null);
    queue.push(message(3));
    const answer = await answerWithin(newer, 1000);
    expect(answer!.events.map((queued) => queued.id)).to.deep.equal([2]);
  });

  it("holds many queues' answers with one timer, not one each", async function () {
    const queues = Array.from({ length: 1000 }, (_, n) => newQueue(30, `q${n}`));
    const firsts = queues.map((queue) => queue.wait(60_000));
    for (const queue of queues) queue.push(message(1));
    await Promise.all(firsts);
    const realSetTimeout = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return realSetTimeout(...args);
    }) as typeof setTimeout;
    let seconds: Array<Promise<QueuedEvent[]>>;
    try {
      seconds = queues.map((queue) => {
        queue.acknowledge(0);
        return queue.wait(60_000);
      });
      for (const queue of queues) queue.push(message(2));
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    // The parked polls' heartbeat timer (one per interval) and one coalescing timer.
    expect(timers).to.be.at.most(2);
    const answers = await Promise.all(seconds);
    expect(answers.every((events) => events.length === 1 && events[0]!.id === 1)).to.equal(true);
    for (const queue of queues) queue.finishWait([]);
  });

  it("defaults to a window of a few milliseconds", function () {
    expect(new EventQueue("q", 1, 1, OPTIONS, Date.now()).coalesceMs).to.equal(COALESCE_MS);
    expect(COALESCE_MS).to.be.within(1, 20);
  });
});

describe("the hub's poll with coalescing", function () {
  function busyQueue(hub: EventHub): EventQueue {
    const queue = hub.createQueue(1, 1, OPTIONS);
    queue.coalesceMs = WINDOW_MS;
    return queue;
  }

  it("returns queued events at once to a queue not answered lately", async function () {
    const hub = newHub();
    const queue = busyQueue(hub);
    queue.push(message(1));
    const answer = await answerWithin(hub.poll(queue, undefined, false), WINDOW_MS / 2);
    expect(answer!.events.map((queued) => queued.id)).to.deep.equal([0]);
  });

  it("holds a blocking poll on a queue answered lately until the window ends, then answers with everything", async function () {
    const hub = newHub();
    const queue = busyQueue(hub);
    queue.push(message(1));
    const answeredAt = performance.now();
    await hub.poll(queue, undefined, false);
    queue.push(message(2));
    const poll = hub.poll(queue, 0, false);
    queue.push(message(3));
    const answer = await answerWithin(poll, WINDOW_MS * 10, answeredAt);
    expect(answer!.events.map((queued) => queued.id)).to.deep.equal([1, 2]);
    expect(answer!.afterMs).to.be.at.least(WINDOW_MS - 2);
  });

  it("answers dont_block at once, within a window or not", async function () {
    const hub = newHub();
    const queue = busyQueue(hub);
    queue.push(message(1));
    await hub.poll(queue, undefined, false);
    queue.push(message(2));
    const answer = await answerWithin(hub.poll(queue, 0, true), WINDOW_MS / 2);
    expect(answer!.events.map((queued) => queued.id)).to.deep.equal([1]);
    const empty = await answerWithin(hub.poll(queue, 1, true), WINDOW_MS / 2);
    expect(empty!.events).to.deep.equal([]);
  });

  it("releases a held poll with no events when the queue is deleted, or the hub stops", async function () {
    const hub = newHub();
    const queue = busyQueue(hub);
    queue.push(message(1));
    await hub.poll(queue, undefined, false);
    queue.push(message(2));
    const held = hub.poll(queue, 0, false);
    hub.deleteQueue(queue);
    expect((await answerWithin(held, WINDOW_MS / 2))!.events).to.deep.equal([]);

    const other = busyQueue(hub);
    other.push(message(1));
    await hub.poll(other, undefined, false);
    other.push(message(2));
    const stopping = hub.poll(other, 0, false);
    hub.stop();
    expect((await answerWithin(stopping, WINDOW_MS / 2))!.events).to.deep.equal([]);
  });

  it("ends a held poll when the client goes away, keeping its events", async function () {
    const hub = newHub();
    const queue = busyQueue(hub);
    queue.push(message(1));
    await hub.poll(queue, undefined, false);
    queue.push(message(2));
    const held = hub.poll(queue, 0, false);
    // What GET /events does when its client leaves (api/events.ts, whenGone).
    queue.finishWait([]);
    expect((await answerWithin(held, WINDOW_MS / 2))!.events).to.deep.equal([]);
    expect(queue.events.map((queued) => queued.id)).to.deep.equal([1]);
  });
});
