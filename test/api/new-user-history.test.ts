import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { Client, expectSuccess } from "../helpers/client.js";
import { createBot } from "../helpers/bots.js";
import { register } from "../helpers/events.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

interface FeedMessage {
  id: number;
  flags: string[];
  stream_id?: number;
  type: string;
  sender_email: string;
}

const WELCOME_BOT = "welcome-bot@chatd.test";

const WEEK_MS = 7 * 24 * 3600 * 1000;
const UNREAD = ["historical"];
const READ = ["read", "historical"];

/** POST /users as the owner, then logs in as the new user. */
async function createPerson(server: TestServer, owner: TestUser, email: string): Promise<Client> {
  const password = "new-user-pw";
  expectSuccess(await owner.client.post("/users", { email, password, full_name: email.split("@")[0] }));
  const login = expectSuccess(await server.anonymous.post("/fetch_api_key", { username: email, password }));
  return new Client(server.url, { email, apiKey: login.api_key as string });
}

/** GET /messages narrow=[] (the combined feed), as zulip-terminal asks for it at start. */
async function feed(client: Client): Promise<FeedMessage[]> {
  const body = expectSuccess(
    await client.get("/messages", { narrow: [], anchor: "newest", num_before: 2000, num_after: 0 }),
  );
  return body.messages as FeedMessage[];
}

/**
 * The feed's channel history: a person created through POST /users also has Welcome Bot's
 * greeting, the newest message, unread and starred (welcome-dm.test.ts); checked and left out.
 */
function history(messages: FeedMessage[]): FeedMessage[] {
  const greeting = messages.at(-1);
  expect(greeting).to.include({ type: "private", sender_email: WELCOME_BOT });
  expect(greeting!.flags).to.deep.equal(["starred"]);
  return messages.slice(0, -1);
}

/**
 * Zulip's add_new_user_history: a person created through POST /users finds the recent
 * messages of the channels they joined in their feed, the newest 20 unread.
 */
describe("new users' message history", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  let lobby: number;
  /** Every message of #Lobby, oldest first. */
  let lobbyIds: number[];
  let elsewhere: number;
  let secret: number;
  let direct: number;
  let ancient: number;

  async function channelMessageIds(viewer: TestUser, channelId: number): Promise<number[]> {
    const body = expectSuccess(
      await viewer.client.get("/messages", {
        narrow: [{ operator: "channel", operand: channelId }],
        anchor: "newest",
        num_before: 2000,
        num_after: 0,
      }),
    );
    return (body.messages as FeedMessage[]).map((m) => m.id);
  }

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    lobby = await createChannel(u.desdemona, "Lobby", [u.desdemona, u.hamlet], { is_default_stream: true });
    elsewhere = await createChannel(u.hamlet, "Elsewhere", [u.hamlet]);
    secret = await createChannel(u.hamlet, "Secret", [u.hamlet, u.desdemona], { invite_only: true });
    ancient = await sendToChannel(u.hamlet, lobby, "old times", "long ago");
    // Zulip used to skip messages older than 12 weeks; it no longer does.
    server.clock.advance(13 * WEEK_MS);
    for (let i = 0; i < 24; i++) await sendToChannel(u.hamlet, lobby, "chatter", `lobby ${i}`);
    await sendToChannel(u.hamlet, elsewhere, "chatter", "not a default channel");
    await sendToChannel(u.hamlet, secret, "chatter", "private");
    direct = await sendDirect(u.hamlet, [u.othello], "a direct message");
    lobbyIds = (await channelMessageIds(u.desdemona, lobby)).sort((a, b) => a - b);
  });
  after(async function () {
    await server.close();
  });

  it("fills a new user's feed with their default channels' messages, the newest 20 unread", async function () {
    // The channel's creation notice, the ancient message and the 24 others.
    expect(lobbyIds).to.have.lengthOf(26);
    expect(lobbyIds).to.include(ancient);
    const horatio = await createPerson(server, u.desdemona, "horatio@zulip.test");
    const messages = history(await feed(horatio));
    expect(messages.map((m) => m.id)).to.deep.equal(lobbyIds);
    expect(messages.every((m) => m.stream_id === lobby)).to.equal(true);
    const unread = lobbyIds.slice(-20);
    for (const m of messages)
      expect(m.flags, `message ${m.id}`).to.deep.equal(unread.includes(m.id) ? UNREAD : READ);
    // Not other channels' messages, nor private ones, nor others' direct messages.
    const ids = messages.map((m) => m.id);
    expect(ids).not.to.include(direct);
    for (const channel of [elsewhere, secret]) {
      for (const id of await channelMessageIds(u.hamlet, channel)) expect(ids).not.to.include(id);
    }
  });

  it("counts the unread ones in register's unread_msgs", async function () {
    const laertes = await createPerson(server, u.desdemona, "laertes@zulip.test");
    const state = await register(laertes, { fetch_event_types: ["message", "update_message_flags"] });
    const unread = state.unread_msgs as Record<string, unknown>;
    // The newest 20 of the history, and Welcome Bot's greeting.
    expect(unread.count).to.equal(21);
    expect(unread.streams).to.deep.equal([
      { stream_id: lobby, topic: "chatter", unread_message_ids: lobbyIds.slice(-20) },
    ]);
    const messages = await feed(laertes);
    expect(history(messages)).to.have.lengthOf(lobbyIds.length);
    const greeting = messages.at(-1)!;
    expect(
      (unread.pms as Array<{ unread_message_ids: number[] }>).map((p) => p.unread_message_ids),
    ).to.deep.equal([[greeting.id]]);
    expect(unread.huddles).to.deep.equal([]);
    expect(unread.mentions).to.deep.equal([]);
  });

  it("gives bots none", async function () {
    const bot = await createBot(u.hamlet, "helper");
    expect(await feed(bot.client)).to.deep.equal([]);
    // A person created right after does get them.
    const fortinbras = await createPerson(server, u.desdemona, "fortinbras@zulip.test");
    expect(history(await feed(fortinbras)).map((m) => m.id)).to.deep.equal(lobbyIds);
  });

  it("includes private default channels only where subscribers may read the history", async function () {
    // Zulip's invitations can subscribe a new user to private channels; chatd's API refuses
    // private default channels, so the test makes them default directly.
    const shared = await createChannel(u.desdemona, "Shared", [u.desdemona], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    const protectedChannel = await createChannel(u.desdemona, "Protected", [u.desdemona], {
      invite_only: true,
      history_public_to_subscribers: false,
    });
    const inShared = await sendToChannel(u.desdemona, shared, "plans", "shared history");
    const inProtected = await sendToChannel(u.desdemona, protectedChannel, "plans", "protected history");
    await server.app.knex("default_streams").insert([
      { realm_id: realm.id, stream_id: shared },
      { realm_id: realm.id, stream_id: protectedChannel },
    ]);
    server.app.channels.invalidate(realm.id);
    const rosencrantz = await createPerson(server, u.desdemona, "rosencrantz@zulip.test");
    const ids = history(await feed(rosencrantz)).map((m) => m.id);
    expect(ids).to.include(inShared);
    expect(ids).not.to.include(inProtected);
    expect(ids).to.include(lobbyIds.at(-1));
  });
});

describe("new users' message history: the cap", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  it("gives at most the 1000 newest messages", async function () {
    this.timeout(120_000);
    const u = cast(await server.factory.realm());
    const busy = await createChannel(u.desdemona, "Busy", [u.desdemona], { is_default_stream: true });
    const quiet = await createChannel(u.desdemona, "Quiet", [u.desdemona], { is_default_stream: true });
    const first = await sendToChannel(u.desdemona, quiet, "hello", "the oldest of all");
    const sent: number[] = [];
    for (let i = 0; i < 1000; i += 25) {
      const batch = Array.from({ length: 25 }, (_, j) =>
        sendToChannel(u.desdemona, busy, "flood", `m${i + j}`),
      );
      sent.push(...(await Promise.all(batch)));
    }
    const osric = await createPerson(server, u.desdemona, "osric@zulip.test");
    const ids = history(await feed(osric)).map((m) => m.id);
    expect(ids).to.have.lengthOf(1000);
    expect(ids).to.deep.equal(sent.sort((a, b) => a - b));
    expect(ids).not.to.include(first);
    const state = await register(osric, { fetch_event_types: ["message", "update_message_flags"] });
    // The newest 20 of the history, and Welcome Bot's greeting.
    expect((state.unread_msgs as { count: number }).count).to.equal(21);
  });
});
