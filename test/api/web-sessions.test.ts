import { expect } from "chai";
import { Client, expectError, expectSuccess, type ApiResponse, type Params } from "../helpers/client.js";
import { register } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { getFile, upload } from "../helpers/uploads.js";
import {
  browse,
  eventually,
  isAppShell,
  isLoginPage,
  json,
  logIn,
  postForm,
  setSessionCookie,
  type LoggedIn,
  type WebSession,
} from "../helpers/web.js";
import { doCreateSession } from "../../src/actions/sessions.js";
import { generateSessionToken, hashSessionToken } from "../../src/lib/sessions.js";
import { createLogger } from "../../src/logger.js";

const NOT_LOGGED_IN = "Not logged in: API authentication or user session required";
const SESSION_CHALLENGE = 'Session realm="zulip"';

/** The answer to a /json/ request without a live session: 401, challenged for a session (never Basic). */
function expectSessionRequired(res: ApiResponse): void {
  expectError(res, 401, NOT_LOGGED_IN, "UNAUTHORIZED");
  expect(res.headers.get("www-authenticate")).to.equal(SESSION_CHALLENGE);
}

const rowsOf = (server: TestServer, userId: number) =>
  server.app.knex("sessions").where({ user_id: userId }).orderBy("id").select("id");

/** Whether GET / shows this browser the app (true) or the login page (false). */
async function seesApp(server: TestServer, session: WebSession): Promise<boolean> {
  const html = await (await browse(server, "/", { headers: { cookie: session.cookie } })).text();
  expect(isAppShell(html) || isLoginPage(html), html).to.equal(true);
  return isAppShell(html);
}

describe("web client: sessions", function () {
  let server: TestServer;
  let realm: TestRealm;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  describe("/json/ and /api/v1/", function () {
    it("the web client is Zulip's 'website' client: its sender's own messages start read", async function () {
      const hamlet = realm.users.hamlet!;
      const session = await logIn(server, hamlet);
      const browser = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36" };
      const fromPage = expectSuccess(
        await json(
          server,
          session,
          "POST",
          "/messages",
          { type: "direct", to: [realm.users.prospero!.id], content: "sent from the page" },
          { headers: browser },
        ),
      );
      // The same person through the API with a script's User-Agent: not a UI client, so unread.
      const fromScript = expectSuccess(
        await hamlet.client.post("/messages", {
          type: "direct",
          to: JSON.stringify([realm.users.prospero!.id]),
          content: "sent by a script",
        }),
      );
      const flags = async (id: unknown) =>
        await server.app
          .knex("messages")
          .join("user_messages", "user_messages.message_id", "messages.id")
          .where({ "messages.id": id, "user_messages.user_id": hamlet.id })
          .first<{ client: string; flags: number }>(
            "messages.sending_client as client",
            "user_messages.flags",
          );
      const page = await flags(fromPage.id);
      const script = await flags(fromScript.id);
      expect([page.client, page.flags & 1]).to.deep.equal(["website", 1]);
      expect(script.client).to.not.equal("website");
      expect(script.flags & 1).to.equal(0);
    });

    it("/json/users/me and GET /json/messages answer with the cookie", async function () {
      const hamlet = realm.users.hamlet!;
      const session = await logIn(server, hamlet);
      const me = expectSuccess(await json(server, session, "GET", "/users/me"));
      expect(me).to.include({ user_id: hamlet.id, email: hamlet.email, full_name: hamlet.fullName });
      const sent = expectSuccess(
        await json(server, session, "POST", "/messages", {
          type: "direct",
          to: [realm.users.othello!.id],
          content: "a word from the browser",
        }),
      );
      const fetched = expectSuccess(
        await json(server, session, "GET", "/messages", {
          anchor: "newest",
          num_before: 5,
          num_after: 0,
          narrow: [{ operator: "dm", operand: [realm.users.othello!.id] }],
        }),
      );
      const messages = fetched.messages as Array<{ id: number; content: string; sender_id: number }>;
      expect(messages.map((m) => m.id)).to.deep.equal([sent.id]);
      expect(messages[0]).to.include({ sender_id: hamlet.id, content: "<p>a word from the browser</p>" });
    });

    it("/json/ without a session: 401 UNAUTHORIZED, challenged for a session, never Basic", async function () {
      const hamlet = realm.users.hamlet!;
      const cookies = [null, `sessionid=${generateSessionToken()}`, "sessionid=not-a-token"];
      for (const cookie of cookies) {
        const session = cookie === null ? null : { token: "", cookie };
        // GET is served by the plain path, POST by Koa; both answer alike.
        expectSessionRequired(await json(server, session, "GET", "/users/me"));
        expectSessionRequired(
          await json(server, session, "POST", "/messages", { type: "direct", to: [hamlet.id], content: "x" }),
        );
      }
      // An Authorization header does not stand in for the session under /json/.
      const basic = `Basic ${Buffer.from(`${hamlet.email}:${hamlet.apiKey}`).toString("base64")}`;
      expectSessionRequired(
        await json(server, null, "GET", "/users/me", {}, { headers: { authorization: basic } }),
      );
      expectSessionRequired(
        await json(
          server,
          null,
          "POST",
          "/messages",
          { type: "direct", to: [hamlet.id], content: "by key under /json" },
          { headers: { authorization: basic } },
        ),
      );
      expect(await server.app.knex("messages").where({ content: "by key under /json" })).to.deep.equal([]);
      // Nor does a bad Basic credential earn a Basic challenge there.
      const forged = `Basic ${Buffer.from(`${hamlet.email}:${"x".repeat(32)}`).toString("base64")}`;
      expectSessionRequired(
        await json(server, null, "GET", "/users/me", {}, { headers: { authorization: forged } }),
      );
    });

    it("/api/v1/ with only the cookie is refused: Basic authentication is required there", async function () {
      const session = await logIn(server, realm.users.hamlet!);
      const anonymous = new Client(server.url, null);
      const headers = { cookie: session.cookie, "x-csrftoken": session.csrf };
      const get = await anonymous.get("/users/me", {}, { headers });
      expectError(get, 401, NOT_LOGGED_IN, "UNAUTHORIZED");
      expect(get.headers.get("www-authenticate")).to.equal('Basic realm="zulip"');
      const post = await anonymous.post(
        "/messages",
        { type: "direct", to: [realm.users.othello!.id], content: "cookie under api/v1" },
        { headers },
      );
      expectError(post, 401, NOT_LOGGED_IN, "UNAUTHORIZED");
      expect(await server.app.knex("messages").where({ content: "cookie under api/v1" })).to.deep.equal([]);
    });

    it("the same endpoint answers the same under /json/ (session) and /api/v1/ (Basic)", async function () {
      const hamlet = realm.users.hamlet!;
      const session = await logIn(server, hamlet);
      const both = async (method: string, path: string, params: Params = {}) => {
        const viaJson = await json(server, session, method, path, params);
        const viaApi = await hamlet.client.request(method, path, params);
        return { viaJson, viaApi };
      };
      const same = async (method: string, path: string, params: Params = {}) => {
        const { viaJson, viaApi } = await both(method, path, params);
        expect(viaJson.status, `${method} ${path}`).to.equal(viaApi.status);
        expect(viaJson.body, `${method} ${path}`).to.deep.equal(viaApi.body);
        return viaJson;
      };
      expectSuccess(await same("GET", "/users/me"));
      expectSuccess(await same("GET", "/users"));
      expectSuccess(
        await same("GET", "/messages", { anchor: "newest", num_before: 10, num_after: 0, narrow: [] }),
      );
      expectSuccess(await same("GET", "/users/me/subscriptions"));
      expectSuccess(await same("PATCH", "/settings", { enter_sends: true, no_such_setting: 1 }));
      // Refusals too.
      expectError(
        await same("GET", "/messages", { anchor: "sideways", num_before: 1, num_after: 0 }),
        400,
        "Invalid anchor",
      );
      const incomplete = await same("POST", "/messages", { type: "direct", content: "x" });
      expect(incomplete.status).to.equal(400);
      expect(incomplete.body.result).to.equal("error");
      expect((await same("GET", "/no/such/endpoint")).status).to.equal(404);
      expect((await same("PUT", "/users/me")).status).to.equal(405);
      // A change: the same result, each with its own message.
      const { viaJson, viaApi } = await both("POST", "/messages", {
        type: "direct",
        to: [realm.users.othello!.id],
        content: "twice",
      });
      expect(Object.keys(expectSuccess(viaJson)).sort()).to.deep.equal(
        Object.keys(expectSuccess(viaApi)).sort(),
      );
      expect(viaJson.body.id).to.equal((viaApi.body.id as number) - 1);
    });
  });

  describe("API keys", function () {
    it("are never given to a page: the endpoints that issue one refuse under /json/, changing nothing", async function () {
      // A user of its own: the test regenerates its key.
      const reynaldo = await server.factory.user(realm.id, "reynaldo");
      const session = await logIn(server, reynaldo);
      const keysBefore = await server.app.knex("api_keys").select("key_hash").orderBy("id");
      const bot = expectSuccess(
        await reynaldo.client.post("/bots", { full_name: "Yorick", short_name: "yorick", bot_type: 1 }),
      );
      const botKeys = await server.app.knex("api_keys").where({ user_id: bot.user_id }).select("key_hash");
      const refused =
        "API keys are not given to the web client: use /api/v1 (with your email and password) to get one.";
      for (const [method, path, params] of [
        ["POST", "/fetch_api_key", { username: reynaldo.email, password: reynaldo.password }],
        ["POST", "/users/me/api_key/regenerate", {}],
        ["POST", `/bots/${bot.user_id as number}/api_key/regenerate`, {}],
        ["POST", "/bots", { full_name: "Osric", short_name: "osric", bot_type: 1 }],
      ] as const) {
        expectError(await json(server, session, method, path, params), 400, refused);
      }
      const keysAfter = await server.app.knex("api_keys").select("key_hash").orderBy("id");
      expect(keysAfter.length).to.equal(keysBefore.length + 1);
      expect(
        await server.app.knex("api_keys").where({ user_id: bot.user_id }).select("key_hash"),
      ).to.deep.equal(botKeys);
      expect(await server.app.knex("users").where({ full_name: "Osric" }).first()).to.equal(undefined);
      // /api/v1 still issues them, to the clients that hold keys.
      expectSuccess(await reynaldo.client.post("/users/me/api_key/regenerate"));
    });
  });

  describe("logging out", function () {
    it("ends the session: 303 to /, the cookie removed, and it no longer works", async function () {
      const othello = realm.users.othello!;
      const session = await logIn(server, othello);
      const kept = await logIn(server, othello);
      const res = await postForm(
        server,
        "/accounts/logout/",
        {},
        { cookie: session.cookie, "x-csrftoken": session.csrf },
      );
      expect(res.status).to.equal(303);
      expect(res.headers.get("location")).to.equal("/");
      expect(setSessionCookie(res)).to.equal("sessionid=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
      expectSessionRequired(await json(server, session, "GET", "/users/me"));
      expect(await seesApp(server, session)).to.equal(false);
      expect(await rowsOf(server, othello.id)).to.have.lengthOf(1);
      // The user's other session and API key are not touched.
      expectSuccess(await json(server, kept, "GET", "/users/me"));
      expectSuccess(await othello.client.get("/users/me"));
      // Logging out again (a stale cookie, or none) just clears the cookie.
      const again = await postForm(server, "/accounts/logout/", {}, { cookie: session.cookie });
      expect(again.status).to.equal(303);
      expect(setSessionCookie(again)).to.equal("sessionid=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    });

    it("answers JSON to a request that accepts JSON", async function () {
      const session = await logIn(server, realm.users.cordelia!);
      const res = await postForm(
        server,
        "/accounts/logout/",
        {},
        { cookie: session.cookie, "x-csrftoken": session.csrf, accept: "application/json" },
      );
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ result: "success", msg: "" });
      expect(setSessionCookie(res)).to.equal("sessionid=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
      expectSessionRequired(await json(server, session, "GET", "/users/me"));
    });

    it("ends the session's event queues: a parked poll is answered, the queue is gone; others stay", async function () {
      const hamlet = realm.users.hamlet!;
      const session = await logIn(server, hamlet);
      const other = await logIn(server, hamlet);
      const queueOf = async (s: LoggedIn) =>
        expectSuccess(await json(server, s, "POST", "/register", { event_types: ["message"] }))
          .queue_id as string;
      const queueId = await queueOf(session);
      const otherQueueId = await queueOf(other);
      const apiQueueId = (await register(hamlet.client, { event_types: ["message"] })).queue_id as string;
      const poll = json(server, session, "GET", "/events", { queue_id: queueId, last_event_id: -1 });
      await eventually(() => server.app.events.getQueue(queueId, hamlet.id).isPolling, "the poll parks");

      const out = await postForm(
        server,
        "/accounts/logout/",
        {},
        { cookie: session.cookie, "x-csrftoken": session.csrf },
      );
      expect(out.status).to.equal(303);
      const answered = expectSuccess(await poll);
      expect(answered.events).to.deep.equal([]);
      const gone = await hamlet.client.get("/events", {
        queue_id: queueId,
        last_event_id: -1,
        dont_block: true,
      });
      expectError(gone, 400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID");
      for (const id of [otherQueueId, apiQueueId]) {
        expectSuccess(
          await hamlet.client.get("/events", { queue_id: id, last_event_id: -1, dont_block: true }),
        );
      }
    });
  });

  describe("changing one's password", function () {
    it("through /json/settings ends the user's other sessions and keeps this one", async function () {
      const user = await server.factory.user(realm.id, "rosencrantz");
      const current = await logIn(server, user);
      const other = await logIn(server, user);
      const third = await logIn(server, user);
      const otherQueue = expectSuccess(
        await json(server, other, "POST", "/register", { event_types: ["message"] }),
      ).queue_id as string;
      const someoneElse = await logIn(server, realm.users.cordelia!);

      // A refused change ends nothing.
      expectError(
        await json(server, current, "PATCH", "/settings", {
          old_password: "wrong",
          new_password: "a new secret",
        }),
        400,
        "Wrong password!",
      );
      expect(await rowsOf(server, user.id)).to.have.lengthOf(3);

      expectSuccess(
        await json(server, current, "PATCH", "/settings", {
          old_password: user.password,
          new_password: "a new secret",
        }),
      );
      expectSuccess(await json(server, current, "GET", "/users/me"));
      expect(await seesApp(server, current)).to.equal(true);
      for (const ended of [other, third]) {
        expectSessionRequired(await json(server, ended, "GET", "/users/me"));
        expect(await seesApp(server, ended)).to.equal(false);
      }
      expect((await rowsOf(server, user.id)).length).to.equal(1);
      expectError(
        await user.client.get("/events", { queue_id: otherQueue, last_event_id: -1, dont_block: true }),
        400,
        `Bad event queue ID: ${otherQueue}`,
        "BAD_EVENT_QUEUE_ID",
      );
      // API keys stay valid (Zulip's password change keeps them), and other users keep theirs.
      expectSuccess(await user.client.get("/users/me"));
      expectSuccess(await json(server, someoneElse, "GET", "/users/me"));
      // The new password logs in.
      await logIn(server, { email: user.email, password: "a new secret" });
    });

    it("through /api/v1/settings ends all the user's sessions", async function () {
      const user = await server.factory.user(realm.id, "guildenstern");
      const sessions = [await logIn(server, user), await logIn(server, user)];
      expectSuccess(
        await user.client.patch("/settings", { old_password: user.password, new_password: "another secret" }),
      );
      for (const session of sessions) expectSessionRequired(await json(server, session, "GET", "/users/me"));
      expect(await rowsOf(server, user.id)).to.deep.equal([]);
    });
  });

  describe("deactivation", function () {
    it("ends all the user's sessions at once and deletes them; reactivation does not revive them", async function () {
      const user = await server.factory.user(realm.id, "laertes");
      const sessions = [await logIn(server, user), await logIn(server, user)];
      const queueId = expectSuccess(
        await json(server, sessions[0]!, "POST", "/register", { event_types: ["message"] }),
      ).queue_id as string;
      const poll = json(server, sessions[0]!, "GET", "/events", { queue_id: queueId, last_event_id: -1 });
      await eventually(() => server.app.events.getQueue(queueId, user.id).isPolling, "the poll parks");

      expectSuccess(await realm.users.iago!.client.delete(`/users/${user.id}`));
      expect(await rowsOf(server, user.id)).to.deep.equal([]);
      expect((await poll).status).to.equal(200);
      for (const session of sessions) {
        expectSessionRequired(await json(server, session, "GET", "/users/me"));
        expect(await seesApp(server, session)).to.equal(false);
      }

      expectSuccess(await realm.users.iago!.client.post(`/users/${user.id}/reactivate`));
      expectSuccess(await user.client.get("/users/me"));
      for (const session of sessions) {
        expectSessionRequired(await json(server, session, "GET", "/users/me"));
        expectSessionRequired(
          await json(server, session, "POST", "/messages", { type: "direct", to: [user.id], content: "x" }),
        );
        expect(await seesApp(server, session)).to.equal(false);
      }
      // Logging in again works.
      expectSuccess(await json(server, await logIn(server, user), "GET", "/users/me"));
    });

    it("a refused deactivation ends nothing", async function () {
      const user = await server.factory.user(realm.id, "fortinbras");
      const session = await logIn(server, user);
      // A member may not deactivate others.
      const refused = await realm.users.cordelia!.client.delete(`/users/${user.id}`);
      expect(refused.status).to.equal(400);
      expect(await rowsOf(server, user.id)).to.have.lengthOf(1);
      expectSuccess(await json(server, session, "GET", "/users/me"));
    });
  });

  describe("uploaded files", function () {
    it("/user_uploads/ takes the session cookie; another realm's or no session answers as before", async function () {
      const hamlet = realm.users.hamlet!;
      const url = await upload(hamlet, "plan.txt", Buffer.from("the plan"), "text/plain");
      const other = await server.factory.realm({ horatio: 400 }, "Wittenberg");
      const horatio = other.users.horatio!;
      const horatioToken = await server.app.db.transaction((tx) =>
        doCreateSession(server.app, tx, horatio.id),
      );
      const viaCookie = (cookie: string | null) =>
        getFile(server.url, url, null, cookie === null ? {} : { cookie });
      const same = (a: { status: number; bytes: Buffer }, b: { status: number; bytes: Buffer }) => {
        expect(a.status).to.equal(b.status);
        expect(a.bytes.toString()).to.equal(b.bytes.toString());
      };

      const owner = await logIn(server, hamlet);
      const mine = await viaCookie(owner.cookie);
      expect(mine.status).to.equal(200);
      expect(mine.bytes.toString()).to.equal("the plan");
      same(mine, await getFile(server.url, url, hamlet));

      // Someone of the realm the file was not shared with: as with their key.
      const cordelia = await logIn(server, realm.users.cordelia!);
      const refused = await viaCookie(cordelia.cookie);
      expect(refused.status).to.equal(403);
      same(refused, await getFile(server.url, url, realm.users.cordelia!));

      // Another realm's user: as with their key.
      const foreign = await viaCookie(`sessionid=${horatioToken}`);
      expect(foreign.status).to.equal(403);
      same(foreign, await getFile(server.url, url, horatio));

      // No session, or a dead one: as with no credentials at all.
      const none = await viaCookie(null);
      expect(none.status).to.equal(401);
      same(await viaCookie(`sessionid=${generateSessionToken()}`), none);
      same(await viaCookie("sessionid=garbage"), none);
      await postForm(server, "/accounts/logout/", {}, { cookie: owner.cookie, "x-csrftoken": owner.csrf });
      same(await viaCookie(owner.cookie), none);
    });
  });
});

describe("web client: session lifetimes", function () {
  let server: TestServer | null = null;
  afterEach(async function () {
    await server?.close();
    server = null;
  });

  const start = async (idle: number, maxAge: number) => {
    server = await startTestServer({ session_idle_timeout_secs: idle, session_max_age_secs: maxAge });
    server.clock.freeze();
    const realm = await server.factory.realm({ hamlet: 400, othello: 400 });
    return { server, realm };
  };
  const lastActive = async (server: TestServer, userId: number) =>
    Number(
      (await server.app.knex("sessions").where({ user_id: userId }).first("last_active_at")).last_active_at,
    );
  const works = async (server: TestServer, session: LoggedIn) =>
    (await json(server, session, "GET", "/users/me")).status === 200;

  it("idle: a session unused for session_idle_timeout_secs ends; each use within it extends it", async function () {
    const { server, realm } = await start(3600, 90 * 86400);
    const hamlet = realm.users.hamlet!;
    const session = await logIn(server, hamlet);
    const loggedInAt = await lastActive(server, hamlet.id);

    server.clock.advance(3000_000);
    expect(await works(server, session)).to.equal(true);
    // Written in the background (at most every 300 s): the new time reaches the row.
    await eventually(
      async () => (await lastActive(server, hamlet.id)) >= loggedInAt + 3000,
      "the use is recorded",
    );
    server.clock.advance(3000_000); // 6000 s after login, 3000 s after the last use
    expect(await works(server, session)).to.equal(true);
    expect(await seesApp(server, session)).to.equal(true);

    server.clock.advance(3601_000);
    expectSessionRequired(await json(server, session, "GET", "/users/me"));
    expect(await seesApp(server, session)).to.equal(false);
    // The cache is not the reason: a fresh read refuses it as well.
    server.app.sessions.clear();
    expect(await works(server, session)).to.equal(false);
  });

  it("idle timeouts shorter than the write interval still count each use", async function () {
    const { server, realm } = await start(120, 90 * 86400);
    const session = await logIn(server, realm.users.hamlet!);
    for (let i = 0; i < 10; i++) {
      server.clock.advance(60_000);
      expect(await works(server, session), `after ${(i + 1) * 60} s`).to.equal(true);
    }
    server.clock.advance(121_000);
    expect(await works(server, session)).to.equal(false);
  });

  it("absolute: a session ends session_max_age_secs after login, however active", async function () {
    const { server, realm } = await start(3600, 7200);
    const session = await logIn(server, realm.users.hamlet!);
    for (let i = 0; i < 3; i++) {
      server.clock.advance(1800_000);
      expect(await works(server, session)).to.equal(true);
    }
    server.clock.advance(1799_000);
    expect(await works(server, session)).to.equal(true);
    server.clock.advance(1000);
    expectSessionRequired(await json(server, session, "GET", "/users/me"));
    expect(await seesApp(server, session)).to.equal(false);
  });

  it("expired sessions' rows are swept hourly", async function () {
    const { server, realm } = await start(3600, 90 * 86400);
    const hamlet = realm.users.hamlet!;
    const othello = realm.users.othello!;
    const old = await logIn(server, hamlet);
    server.clock.advance(1800_000);
    const fresh = await logIn(server, othello);
    expect(await rowsOf(server, hamlet.id)).to.have.lengthOf(1);
    server.clock.advance(1801_000); // hamlet's idle for 3601 s: expired; othello's for 1801 s
    await eventually(async () => (await rowsOf(server, hamlet.id)).length === 0, "the sweep deletes it");
    expect(await rowsOf(server, othello.id)).to.have.lengthOf(1);
    expect(await works(server, old)).to.equal(false);
    expect(await works(server, fresh)).to.equal(true);
    // And again an hour later: othello's, now idle too, goes.
    server.clock.advance(3600_000);
    await eventually(
      async () => (await rowsOf(server, othello.id)).length === 0,
      "the next sweep deletes it",
    );
  });

  it("a session survives a server restart (its CSRF token too), with its last use and its event queues", async function () {
    const first = await startTestServer({ session_idle_timeout_secs: 3600 }, { keepDataDir: true });
    first.clock.freeze();
    let restarted: TestServer | null = null;
    try {
      const hamlet = (await first.factory.realm({ hamlet: 400 })).users.hamlet!;
      const session = await logIn(first, hamlet);
      first.clock.advance(3000_000);
      expect(await works(first, session)).to.equal(true);
      await eventually(
        async () => (await lastActive(first, hamlet.id)) >= Math.floor(first.clock.nowMs() / 1000),
        "the use is recorded",
      );
      const queueId = expectSuccess(
        await json(first, session, "POST", "/register", {
          event_types: ["message"],
          idle_queue_timeout: 86400,
        }),
      ).queue_id as string;
      await first.stop({ saveQueues: true });
      restarted = await startTestServer(
        { session_idle_timeout_secs: 3600 },
        { dataDir: first.dataDir, clock: first.clock },
      );
      // 3000 s after the last use, 6000 s after login: still alive.
      restarted.clock.advance(3000_000);
      expect(await seesApp(restarted, session)).to.equal(true);
      expect(await works(restarted, session)).to.equal(true);
      const sent = await json(restarted, session, "POST", "/messages", {
        type: "direct",
        to: [hamlet.id],
        content: "after the restart",
      });
      expectSuccess(sent);
      const restored = expectSuccess(
        await json(restarted, session, "GET", "/events", {
          queue_id: queueId,
          last_event_id: -1,
          dont_block: true,
        }),
      );
      expect(
        (restored.events as Array<{ type: string; message?: { id: number } }>).map((e) => e.message?.id),
      ).to.include(sent.body.id);
      const out = await postForm(
        restarted,
        "/accounts/logout/",
        {},
        { cookie: session.cookie, "x-csrftoken": session.csrf },
      );
      expect(out.status).to.equal(303);
      expect(await works(restarted, session)).to.equal(false);
      // The restored queue still knew its session: it ended with it.
      const gone = await new Client(restarted.url, hamlet.client.credentials).get("/events", {
        queue_id: queueId,
        dont_block: true,
      });
      expectError(gone, 400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID");
    } finally {
      await restarted?.close();
      await first.close();
    }
  });
});

describe("web client: secrets in the log", function () {
  it("neither session tokens nor CSRF tokens (nor their hashes, nor passwords) reach a debug-level log", async function () {
    let log = "";
    const server = await startTestServer(
      { rate_limiting: true },
      { logger: createLogger("debug", (line) => (log += line)) },
    );
    try {
      const realm = await server.factory.realm({ hamlet: 400, othello: 400 });
      const hamlet: TestUser = realm.users.hamlet!;
      const sessions = [await logIn(server, hamlet), await logIn(server, realm.users.othello!)];
      const session = sessions[0]!;
      // Everything a browser does with them, refusals included.
      await browse(server, "/", { headers: { cookie: session.cookie } });
      await browse(server, "/login/", { headers: { cookie: session.cookie } });
      await json(server, session, "GET", "/users/me");
      const queueId = expectSuccess(await json(server, session, "POST", "/register", {})).queue_id as string;
      await json(server, session, "GET", "/events", { queue_id: queueId, dont_block: true });
      await json(server, session, "POST", "/messages", { type: "direct", to: [hamlet.id], content: "hi" });
      await json(
        server,
        session,
        "POST",
        "/messages",
        { type: "direct", to: [hamlet.id], content: "x" },
        { csrf: null },
      );
      await json(
        server,
        session,
        "POST",
        "/messages",
        { type: "direct", to: [hamlet.id] },
        { csrf: sessions[1]!.csrf },
      );
      await json(server, session, "POST", "/messages", {}, { headers: { origin: "https://evil.test" } });
      await json(server, session, "GET", "/no/such/thing");
      await json(server, { token: "", cookie: `sessionid=${session.token}x` }, "GET", "/users/me");
      await browse(server, `/user_uploads/1/x/y.txt`, { headers: { cookie: session.cookie } });
      await postForm(server, "/accounts/login/", { username: hamlet.email, password: "wrong password" });
      await json(server, session, "PATCH", "/settings", {
        old_password: "nope",
        new_password: "new password",
      });
      await postForm(server, "/accounts/logout/", {}, { cookie: session.cookie });
      await postForm(
        server,
        "/accounts/logout/",
        { csrfmiddlewaretoken: session.csrf },
        { cookie: session.cookie },
      );
      await json(server, session, "GET", "/users/me");
      await server.stop({ saveQueues: true });

      expect(log).to.contain("POST /accounts/logout/");
      expect(log).to.contain("GET /json/users/me 200");
      for (const s of sessions) {
        for (const secret of [s.token, s.csrf, hashSessionToken(s.token)]) {
          expect(log).not.to.contain(secret);
          expect(log).not.to.contain(secret.slice(0, 16));
        }
      }
      for (const secret of [hamlet.password, "wrong password", "new password", hamlet.apiKey]) {
        expect(log).not.to.contain(secret);
      }
    } finally {
      await server.close();
    }
  });
});
