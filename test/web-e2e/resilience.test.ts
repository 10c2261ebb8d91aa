import { expect } from "chai";
import type { Browser } from "playwright-core";
import { expectSuccess } from "../helpers/client.js";
import {
  launchBrowser,
  logIn,
  messages,
  requireBrowser,
  screenshotOnFailure,
  type Person,
} from "../helpers/browser.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";
import { ROLE } from "../../src/world/roles.js";

/**
 * A day at a laptop: the server restarts, the event queue is lost (the server dropped it,
 * or the laptop slept past its timeout), the network drops. The page carries on without a
 * reload, and no message is lost or shown twice.
 */
describe("web client: survives restarts, lost queues and a dropped network", function () {
  this.timeout(90_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let port: number;
  let channelId: number;

  const restart = async (saveQueues: boolean) => {
    await server.stop({ saveQueues });
    server = await startTestServer({}, { dataDir: server.dataDir, keepDataDir: true, port });
  };
  const send = async (content: string): Promise<void> => {
    expectSuccess(
      await realm.users.othello!.client.post("/messages", {
        type: "stream",
        to: channelId,
        topic: "watch",
        content,
      }),
    );
  };
  const shown = (text: string) => messages(hamlet.page).filter({ hasText: text });

  before(async function () {
    requireBrowser(this);
    server = await startTestServer({}, { keepDataDir: true });
    port = Number(new URL(server.url).port);
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
    expectSuccess(
      await realm.users.desdemona!.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: "Elsinore" }],
        principals: [realm.users.hamlet!.id, realm.users.othello!.id],
      }),
    );
    const streams = expectSuccess(await realm.users.othello!.client.get("/streams")).streams as Array<{
      stream_id: number;
      name: string;
    }>;
    channelId = streams.find((s) => s.name === "Elsinore")!.stream_id;
    browser = await launchBrowser();
    hamlet = await logIn(browser, server, realm.users.hamlet!.email, realm.users.hamlet!.password, {
      hash: `#narrow/channel/${channelId}-Elsinore/topic/watch`,
    });
    await send("first watch");
    await shown("first watch").waitFor();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [hamlet]);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  it("keeps its event queue across a graceful restart", async function () {
    await restart(true);
    await send("after the restart");
    await shown("after the restart").waitFor();
    expect(await shown("first watch").count()).to.equal(1);
  });

  it("registers anew when the server lost its queue, and fetches what it missed, once", async function () {
    // Stopped without saving queues (a crash): the page's queue is gone; a message is sent while it is down.
    await server.stop({ saveQueues: false });
    const restarted = await startTestServer({}, { dataDir: server.dataDir, keepDataDir: true, port });
    server = restarted;
    await send("while the page had no queue");
    await shown("while the page had no queue").waitFor({ timeout: 45_000 });
    await send("live again");
    await shown("live again").waitFor();
    for (const text of ["first watch", "after the restart", "while the page had no queue", "live again"]) {
      expect(await shown(text).count(), text).to.equal(1);
    }
    expect(hamlet.problems.filter((p) => !p.includes("Failed to load resource"))).to.deep.equal([]);
  });

  it("comes back after the network dropped, without a reload", async function () {
    await hamlet.context.setOffline(true);
    await send("sent while offline");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await hamlet.context.setOffline(false);
    await shown("sent while offline").waitFor({ timeout: 45_000 });
    expect(await shown("sent while offline").count()).to.equal(1);
  });
});
