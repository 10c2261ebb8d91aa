import { expect } from "chai";
import { Client, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import { startTestServer } from "../helpers/server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("graceful shutdown with a request still writing at the deadline", function () {
  this.timeout(30_000);

  it("saves the queues only after that request's transaction, so a stored message's event is in them", async function () {
    const server = await startTestServer({ shutdown_timeout_secs: 1 }, { keepDataDir: true });
    try {
      const cast = await server.factory.realm({ hamlet: 400, ophelia: 400 });
      const hamlet = cast.users.hamlet!;
      const ophelia = cast.users.ophelia!;
      const { queue_id } = await register(ophelia.client, { event_types: ["message"] });

      // Another write holds the write lock past the shutdown deadline; the send waits behind it.
      let release!: () => void;
      const held = server.app.db.transaction(() => new Promise<void>((r) => (release = r)));
      const sending = hamlet.client
        .post("/messages", { type: "direct", to: JSON.stringify([ophelia.id]), content: "late" })
        .catch(() => null); // its connection is cut at the deadline
      await sleep(300);
      const stopping = server.stop({ saveQueues: true });
      await sleep(1_500);
      release();
      await held;
      await stopping;
      await sending;

      const restarted = await startTestServer({}, { dataDir: server.dataDir });
      try {
        const moved = new Client(restarted.url, ophelia.client.credentials);
        const stored = expectSuccess(
          await moved.get("/messages", { anchor: "newest", num_before: 10, num_after: 0 }),
        ).messages as Array<{ id: number; content: string }>;
        const late = stored.filter((message) => message.content.includes("late"));
        const events = (await pendingEvents(moved, queue_id)).filter((event) => event.type === "message");
        // Stored and delivered, or neither; never stored with its event lost.
        expect(events.map((event) => (event.message as { id: number }).id)).to.deep.equal(
          late.map((message) => message.id),
        );
      } finally {
        await restarted.close();
      }
    } finally {
      await server.close();
    }
  });
});
