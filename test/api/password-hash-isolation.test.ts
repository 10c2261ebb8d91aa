import { expect } from "chai";
import { expectError, expectSuccess } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";
import { passwordHashGate } from "../../src/lib/passwords.js";

/** Occupies every hashing slot, and optionally the whole queue, until released. */
function occupyHashing(fillQueue: boolean) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const count = passwordHashGate.limit + (fillQueue ? passwordHashGate.queueLimit : 0);
  const tasks = Array.from({ length: count }, () => passwordHashGate.run(() => held));
  return async () => {
    release();
    await Promise.all(tasks);
  };
}

describe("password hashing is bounded (a login flood cannot starve the database)", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  it("with every slot busy and the queue full, a login is refused at once with Zulip's 429", async function () {
    const hamlet = realm.users.hamlet!;
    const release = occupyHashing(true);
    try {
      const started = performance.now();
      const res = await server.anonymous.post("/fetch_api_key", {
        username: hamlet.email,
        password: hamlet.password,
      });
      expectError(res, 429, "API usage exceeded rate limit", "RATE_LIMIT_HIT");
      expect(res.body["retry-after"]).to.equal(1);
      expect(res.headers.get("retry-after")).to.equal("1");
      expect(performance.now() - started).to.be.below(1000);
      // Requests that hash nothing go on as usual.
      expectSuccess(await hamlet.client.get("/messages", { anchor: "newest", num_before: 5, num_after: 0 }));
    } finally {
      await release();
    }
    expectSuccess(
      await server.anonymous.post("/fetch_api_key", { username: hamlet.email, password: hamlet.password }),
    );
  });

  it("with every slot busy, a login waits its turn in the queue, then succeeds", async function () {
    const hamlet = realm.users.hamlet!;
    const release = occupyHashing(false);
    const login = server.anonymous.post("/fetch_api_key", {
      username: hamlet.email,
      password: hamlet.password,
    });
    for (let i = 0; i < 100 && passwordHashGate.queued === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(passwordHashGate.queued).to.equal(1);
    await release();
    expectSuccess(await login);
    expect([passwordHashGate.running, passwordHashGate.queued]).to.deep.equal([0, 0]);
  });
});
