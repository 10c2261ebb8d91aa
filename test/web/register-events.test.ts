import { expect } from "chai";
import sharp from "sharp";
import { csrfTokenFor, SESSION_COOKIE } from "../../src/lib/sessions.js";
import { ApiError, NetworkError } from "../../src/web/api/errors.js";
import type { CallParams, LiveApi } from "../../src/web/live/api.js";
import { loadInitial } from "../../src/web/live/fetch.js";
import { LiveQueue, REGISTER_PARAMS } from "../../src/web/live/queue.js";
import { ClientState } from "../../src/web/model/client-state.js";
import type { Narrow } from "../../src/web/model/narrow.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postUpload } from "../helpers/uploads.js";
import { loadedState, observe } from "./observe.js";

/**
 * The web client's calls as the browser makes them: logged in with the login form, then
 * Zulip's API under /json/ with the session cookie and the CSRF token, parameters encoded
 * as api/http.ts encodes them (strings as they are, the rest JSON).
 */
async function logIn(server: TestServer, user: TestUser): Promise<LiveApi> {
  const login = await fetch(new URL("/accounts/login/", server.url), {
    method: "POST",
    body: new URLSearchParams({ username: user.email, password: user.password }),
    redirect: "manual",
  });
  expect(login.status).to.equal(303);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
  const csrf = csrfTokenFor(cookie.slice(SESSION_COOKIE.length + 1));
  const call = async <T>(
    method: string,
    path: string,
    params: CallParams,
    signal?: AbortSignal,
  ): Promise<T> => {
    const encoded = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== undefined) encoded.set(key, typeof value === "string" ? value : JSON.stringify(value));
    }
    const url = new URL(`/json${path}`, server.url);
    if (method === "GET") url.search = encoded.toString();
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        body: method === "GET" ? undefined : encoded,
        headers: { cookie, "X-CSRFToken": csrf, Accept: "application/json" },
        signal,
      });
    } catch (err) {
      throw new NetworkError((err as Error).message);
    }
    const json = (await res.json()) as Record<string, unknown>;
    if (json.result !== "success") throw new ApiError(String(json.msg), String(json.code), res.status, json);
    return json as T;
  };
  return {
    register: (params) => call("POST", "/register", params),
    events: (params, signal) => call("GET", "/events", params, signal),
    messages: (params) => call("GET", "/messages", params),
  };
}

const pngOf = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 20, g: 200, b: 30 } } })
    .png()
    .toBuffer();

describe("web client against the real server: register + the events that follow = a fresh register", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
  });
  after(async function () {
    await server.close();
  });

  it("agrees after messages, edits, moves, deletions, flags, subscriptions, people, settings, statuses and more", async function () {
    this.timeout(60_000);
    const { iago, hamlet, othello, cordelia } = u;
    // Before Hamlet's client registers: channels, unread messages, a star, a muted channel.
    const general = await createChannel(iago, "general", [iago, hamlet, othello, cordelia]);
    const design = await createChannel(iago, "design", [iago, hamlet, othello]);
    const social = await createChannel(iago, "social", [iago, hamlet, othello]);
    const leaving = await createChannel(iago, "leaving", [iago, hamlet]);
    const hungry = await sendToChannel(othello, general, "lunch", "who's hungry?");
    const askHamlet = await sendToChannel(othello, general, "lunch", "@**Hamlet Dane** lunch?");
    const specs = await sendToChannel(othello, design, "specs", "a draft");
    const psst = await sendDirect(othello, [hamlet], "psst");
    const group = await sendDirect(othello, [hamlet, cordelia], "all of us");
    await sendToChannel(iago, leaving, "bye", "unread where Hamlet is leaving");
    expectSuccess(
      await hamlet.client.post("/messages/flags", { messages: [hungry], op: "add", flag: "starred" }),
    );
    expectSuccess(
      await hamlet.client.post("/users/me/subscriptions/properties", {
        subscription_data: [{ stream_id: design, property: "is_muted", value: true }],
      }),
    );

    const api = await logIn(server, hamlet);
    const state = new ClientState();
    const queue = new LiveQueue(state, api);
    const failures: unknown[] = [];
    queue.onError = (err) => failures.push(err);
    await queue.start();
    try {
      // Messages: to channels (a mention, a channel-wide one in the muted channel), DMs, a self-DM.
      await sendToChannel(othello, general, "lunch", "soup today");
      await sendToChannel(othello, design, "specs", "@**all** meeting at noon");
      await sendToChannel(othello, social, "party", "@**Hamlet Dane** are you coming?");
      await sendDirect(cordelia, [hamlet], "father?");
      await sendDirect(hamlet, [hamlet], "note to self");
      await sendDirect(hamlet, [othello], "on my way");
      // A channel-wide mention in a topic Hamlet then mutes: it no longer counts.
      await sendToChannel(othello, general, "plans", "@**all** plans for tonight");
      await sendToChannel(othello, general, "chatter", "one");
      await sendToChannel(othello, general, "chatter", "two");
      // An edit that mentions Hamlet, a topic move, a move to another channel, a deletion.
      expectSuccess(
        await othello.client.patch(`/messages/${hungry}`, { content: "@**Hamlet Dane** hungry?" }),
      );
      expectSuccess(
        await othello.client.patch(`/messages/${askHamlet}`, {
          topic: "dinner",
          propagate_mode: "change_one",
        }),
      );
      expectSuccess(
        await iago.client.patch(`/messages/${specs}`, { stream_id: social, propagate_mode: "change_one" }),
      );
      expectSuccess(await othello.client.delete(`/messages/${hungry}`));
      expectSuccess(await othello.client.post(`/messages/${askHamlet}/reactions`, { emoji_name: "smile" }));
      // Flags: read, unread again, starred.
      expectSuccess(
        await hamlet.client.post("/messages/flags", { messages: [psst], op: "add", flag: "read" }),
      );
      expectSuccess(
        await hamlet.client.post("/messages/flags", { messages: [group], op: "add", flag: "read" }),
      );
      expectSuccess(
        await hamlet.client.post("/messages/flags", { messages: [group], op: "remove", flag: "read" }),
      );
      expectSuccess(
        await hamlet.client.post("/messages/flags", { messages: [askHamlet], op: "add", flag: "starred" }),
      );
      expectSuccess(
        await hamlet.client.post("/mark_topic_as_read", { stream_id: general, topic_name: "chatter" }),
      );
      // Subscriptions: mute and pin, leave a channel with unread messages, join one, others come and go.
      expectSuccess(
        await hamlet.client.post("/users/me/subscriptions/properties", {
          subscription_data: [
            { stream_id: social, property: "is_muted", value: true },
            { stream_id: general, property: "pin_to_top", value: true },
            { stream_id: general, property: "color", value: "#c2c2c2" },
          ],
        }),
      );
      expectSuccess(await hamlet.client.delete("/users/me/subscriptions", { subscriptions: ["leaving"] }));
      await createChannel(iago, "announce", [iago, hamlet], { description: "News" });
      await createChannel(iago, "backstage", [iago]);
      expectSuccess(
        await iago.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "design" }],
          principals: [cordelia.id],
        }),
      );
      expectSuccess(await cordelia.client.delete("/users/me/subscriptions", { subscriptions: ["general"] }));
      expectSuccess(await iago.client.patch(`/streams/${design}`, { description: "All **things** design" }));
      expectSuccess(await iago.client.patch(`/streams/${social}`, { new_name: "revels" }));
      // People: a new one, a rename, roles (Hamlet's own too), a status, presence, a custom emoji, a group.
      await server.factory.user(realm.id, "horatio");
      expectSuccess(await iago.client.patch(`/users/${othello.id}`, { full_name: "Othello the Moor" }));
      expectSuccess(await iago.client.patch(`/users/${othello.id}`, { role: 200 }));
      expectSuccess(await iago.client.patch(`/users/${hamlet.id}`, { role: 300 }));
      expectSuccess(
        await othello.client.post("/users/me/status", { status_text: "at sea", emoji_name: "boat" }),
      );
      expectSuccess(await othello.client.post("/users/me/presence", { status: "active" }));
      const field = expectSuccess(
        await iago.client.post("/realm/profile_fields", { field_type: 1, name: "Home" }),
      ).id as number;
      expectSuccess(
        await othello.client.patch("/users/me/profile_data", { data: [{ id: field, value: "Venice" }] }),
      );
      expectSuccess(
        await iago.client.patch("/users/me/profile_data", { data: [{ id: field, value: "Venice" }] }),
      );
      expectSuccess(await iago.client.delete("/users/me/profile_data", { data: [field] }));
      expectSuccess(
        await postUpload(iago, "octopus.png", await pngOf(64, 64), { path: "/realm/emoji/octopus" }),
      );
      const players = expectSuccess(
        await iago.client.post("/user_groups/create", {
          name: "players",
          description: "The players",
          members: [othello.id, hamlet.id],
        }),
      ).group_id as number;
      expectSuccess(
        await iago.client.post(`/user_groups/${players}/members`, {
          add: [cordelia.id],
          delete: [othello.id],
        }),
      );
      // Hamlet's own: settings, a followed topic in the muted channel, a muted user, drafts.
      expectSuccess(await hamlet.client.patch("/settings", { twenty_four_hour_time: true }));
      expectSuccess(
        await hamlet.client.post("/user_topics", { stream_id: design, topic: "specs", visibility_policy: 3 }),
      );
      expectSuccess(await hamlet.client.post(`/users/me/muted_users/${cordelia.id}`));
      expectSuccess(
        await hamlet.client.post("/user_topics", {
          stream_id: general,
          topic: "plans",
          visibility_policy: 1,
        }),
      );
      const [kept, dropped] = expectSuccess(
        await hamlet.client.post("/drafts", {
          drafts: [
            {
              type: "stream",
              to: [general],
              topic: "lunch",
              content: "I'll bring",
              timestamp: 1_700_000_000,
            },
            { type: "private", to: [othello.id], topic: "", content: "psst", timestamp: 1_700_000_001 },
          ],
        }),
      ).ids as number[];
      expectSuccess(
        await hamlet.client.patch(`/drafts/${kept}`, {
          draft: {
            type: "stream",
            to: [general],
            topic: "lunch",
            content: "I'll bring bread",
            timestamp: 1_700_000_002,
          },
        }),
      );
      expectSuccess(await hamlet.client.delete(`/drafts/${dropped}`));

      // The last action's event: once it is applied, every earlier one is.
      const applied = new Promise<void>((resolve) => {
        queue.onEvents = (events) => {
          if (events.some((e) => e.type === "message" && e.message.subject === "the end")) resolve();
        };
      });
      await sendToChannel(othello, general, "the end", "that is all");
      await applied;
    } finally {
      queue.stop();
    }
    expect(failures).to.deep.equal([]);
    expect(queue.connection.value).to.equal("live");

    const fresh = loadedState(await api.register(REGISTER_PARAMS));
    const [got, want] = [observe(state), observe(fresh)];
    for (const key of Object.keys(want) as Array<keyof typeof want>) {
      expect(got[key], key).to.deep.equal(want[key]);
    }
    // The state did change: the comparison is not of two empty states.
    expect(got.unread.mentions.length).to.be.greaterThan(1);
    expect(Object.keys(got.drafts)).to.have.length(1);
  });

  it("fetches message lists as the client asks GET /messages, for each kind of narrow", async function () {
    const { iago, hamlet, othello, prospero } = u;
    const channel = await createChannel(iago, "fetching", [iago, hamlet, othello]);
    const a = [
      await sendToChannel(othello, channel, "a", "one"),
      await sendToChannel(iago, channel, "A", "two"),
      await sendToChannel(othello, channel, "a", "three"),
    ];
    const b = await sendToChannel(othello, channel, "b", "four");
    const trio = await sendDirect(othello, [hamlet, prospero], "the three of us");
    const api = await logIn(server, hamlet);
    const state = new ClientState();
    state.load(await api.register(REGISTER_PARAMS));
    const fetched = async (narrow: Narrow) => {
      const list = state.lists.get(narrow, hamlet.id);
      await loadInitial(state, list, null, api.messages);
      expect(list.error.value, JSON.stringify(narrow)).to.equal(null);
      return list.ids.value;
    };
    const inChannel = { operator: "channel", operand: String(channel) };
    expect(await fetched([inChannel, { operator: "topic", operand: "a" }])).to.deep.equal(a);
    expect(await fetched([inChannel, { operator: "topic", operand: "a", negated: true }])).to.deep.include(b);
    expect(await fetched([inChannel, { operator: "sender", operand: String(othello.id) }])).to.deep.equal([
      a[0],
      a[2],
      b,
    ]);
    expect(await fetched([{ operator: "dm", operand: `${prospero.id},${othello.id}` }])).to.deep.equal([
      trio,
    ]);
    // The API's dm-including takes one user: two people are two terms.
    expect(
      await fetched([{ operator: "dm-including", operand: `${prospero.id},${othello.id}` }]),
    ).to.deep.equal([trio]);
    expect(await fetched([inChannel, { operator: "search", operand: "three" }])).to.deep.equal([a[2]]);
    const message = state.messages.value(trio)!;
    expect(message.content).to.equal("<p>the three of us</p>");
    expect(message.flags).to.deep.equal([]);
  });
});
