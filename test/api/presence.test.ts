import { expect } from "chai";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ROLE } from "../../src/world/roles.js";

describe("presence", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const now = () => Math.floor(server.clock.nowMs() / 1000);
  const minutes = (n: number) => server.clock.advance(n * 60_000);
  const ping = (u: TestUser, params: Params = {}) =>
    u.client.post("/users/me/presence", { status: "active", ...params });
  const fresh = async () => {
    const realm = await server.factory.realm();
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const setRealmPresenceDisabled = async (realm: TestRealm, disabled: boolean) => {
    await server.app.knex("realms").where({ id: realm.id }).update({ presence_disabled: disabled });
    server.app.realms.invalidate(realm.id);
  };

  describe("POST /users/me/presence", function () {
    it("records the status and answers with everyone's presence in the legacy format", async function () {
      const { u } = await fresh();
      minutes(10);
      expectSuccess(await ping(u("hamlet")));
      const t = now();
      const body = expectSuccess(await ping(u("othello"), { status: "idle", new_user_input: true }));
      expect(body).to.have.all.keys(
        "result",
        "msg",
        "presences",
        "server_timestamp",
        "presence_last_update_id",
      );
      expect(body.server_timestamp)
        .to.be.a("number")
        .and.be.closeTo(server.clock.nowMs() / 1000, 2);
      expect(body.presence_last_update_id).to.be.a("number").and.be.greaterThan(0);
      expect(Object.keys(body.presences).sort()).to.deep.equal(["hamlet@zulip.test", "othello@zulip.test"]);
      const hamlet = body.presences["hamlet@zulip.test"];
      expect(hamlet.website).to.include({ client: "website", status: "active", pushable: false });
      expect(hamlet.website.timestamp).to.be.closeTo(t, 2);
      expect(hamlet.aggregated).to.deep.equal({
        client: "website",
        status: "active",
        timestamp: hamlet.website.timestamp,
      });
      // Othello was never active (joined ten minutes ago): idle since he connected.
      expect(body.presences["othello@zulip.test"].website).to.include({ status: "idle" });
      expect(body.presences["othello@zulip.test"].website.timestamp).to.be.closeTo(t, 2);
    });

    it("ping_only answers nothing but success", async function () {
      const { u } = await fresh();
      const body = expectSuccess(await ping(u("hamlet"), { ping_only: true }));
      expect(body).to.deep.equal({ result: "success", msg: "" });
      // The ping still counts.
      const after = expectSuccess(await ping(u("othello"), { slim_presence: true }));
      expect(after.presences).to.have.property(String(u("hamlet").id));
    });

    it("slim_presence gives the modern format keyed by user ID", async function () {
      const { realm, u } = await fresh();
      expectSuccess(await ping(u("othello"), { status: "idle" }));
      minutes(3);
      const body = expectSuccess(await ping(u("hamlet"), { slim_presence: true }));
      const hamlet = body.presences[String(u("hamlet").id)];
      expect(hamlet.active_timestamp).to.be.closeTo(now(), 2);
      expect(hamlet).to.deep.equal({
        active_timestamp: hamlet.active_timestamp,
        idle_timestamp: hamlet.active_timestamp,
      });
      // Never active: active_timestamp falls back to the date he joined.
      const othello = body.presences[String(u("othello").id)];
      const joined = Number((await server.factory.row(realm.id, u("othello").id)).date_joined);
      expect(othello.active_timestamp).to.equal(joined);
      expect(othello.idle_timestamp).to.be.closeTo(now() - 180, 2);
    });

    it("last_update_id returns only what changed since, always in the modern format", async function () {
      const { u } = await fresh();
      const first = expectSuccess(await ping(u("hamlet"), { last_update_id: -1 }));
      expect(Object.keys(first.presences)).to.deep.equal([String(u("hamlet").id)]);
      const seen = first.presence_last_update_id as number;
      // Nothing new since: the same ID back and no data.
      const again = expectSuccess(await ping(u("hamlet"), { last_update_id: seen }));
      expect(again.presences).to.deep.equal({});
      expect(again.presence_last_update_id).to.equal(seen);
      // Othello's first ping is new for Hamlet.
      expectSuccess(await ping(u("othello"), { ping_only: true }));
      const update = expectSuccess(await ping(u("hamlet"), { last_update_id: seen }));
      expect(Object.keys(update.presences)).to.deep.equal([String(u("othello").id)]);
      expect(update.presence_last_update_id).to.be.greaterThan(seen);
    });

    it("stores a time again only after 55 seconds, so frequent pings change nothing", async function () {
      const { u } = await fresh();
      const first = expectSuccess(await ping(u("hamlet"), { slim_presence: true }));
      const entry = first.presences[String(u("hamlet").id)];
      server.clock.advance(30_000);
      const soon = expectSuccess(await ping(u("hamlet"), { slim_presence: true }));
      expect(soon.presences[String(u("hamlet").id)]).to.deep.equal(entry);
      expect(soon.presence_last_update_id).to.equal(first.presence_last_update_id);
      server.clock.advance(30_000);
      const later = expectSuccess(await ping(u("hamlet"), { slim_presence: true }));
      expect(later.presences[String(u("hamlet").id)].active_timestamp).to.be.greaterThan(
        entry.active_timestamp as number,
      );
      expect(later.presence_last_update_id).to.be.greaterThan(first.presence_last_update_id as number);
      // An idle report moves only idle_timestamp.
      minutes(2);
      const idle = expectSuccess(await ping(u("hamlet"), { status: "idle", slim_presence: true }));
      const idleEntry = idle.presences[String(u("hamlet").id)];
      expect(idleEntry.active_timestamp).to.equal(later.presences[String(u("hamlet").id)].active_timestamp);
      expect(idleEntry.idle_timestamp).to.be.closeTo(now(), 2);
    });

    it("reaches back 14 days unless history_limit_days says otherwise", async function () {
      const { u } = await fresh();
      expectSuccess(await ping(u("hamlet"), { ping_only: true }));
      const seen = expectSuccess(await ping(u("othello"), { last_update_id: -1 })).presence_last_update_id;
      server.clock.advance(20 * 86_400_000);
      const ids = (body: { presences: object }) => Object.keys(body.presences).sort();
      const me = String(u("hamlet").id);
      const othello = String(u("othello").id);
      expect(ids(expectSuccess(await ping(u("hamlet"), { slim_presence: true })))).to.deep.equal([me]);
      const wide = expectSuccess(await ping(u("hamlet"), { slim_presence: true, history_limit_days: 30 }));
      expect(ids(wide)).to.deep.equal([me, othello].sort());
      const none = expectSuccess(await ping(u("hamlet"), { history_limit_days: 0, last_update_id: -1 }));
      expect(none.presences).to.deep.equal({});
      expect(none.presence_last_update_id).to.equal(-1);
      // A client that already has data (last_update_id > 0) gets every later change, however old.
      const first = expectSuccess(await ping(u("hamlet"), { last_update_id: 0, history_limit_days: 1 }));
      expect(ids(first)).to.deep.equal([me]);
      const since = expectSuccess(
        await ping(u("hamlet"), { last_update_id: seen - 1, history_limit_days: 1 }),
      );
      expect(ids(since)).to.deep.equal([me, othello].sort());
    });

    it("leaves out bots and deactivated users", async function () {
      const { realm, u } = await fresh();
      expectSuccess(await ping(u("cordelia"), { ping_only: true }));
      expectSuccess(await u("iago").client.delete(`/users/${u("cordelia").id}`));
      const body = expectSuccess(await ping(u("hamlet")));
      expect(Object.keys(body.presences)).to.deep.equal(["hamlet@zulip.test"]);
      const bot = await server.factory.user(realm.id, "yorick-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u("hamlet").id,
      });
      expectError(await ping(bot), 400, "This endpoint does not accept bot requests.");
    });

    it("refuses bad parameters, recording nothing", async function () {
      const { u } = await fresh();
      expectError(
        await u("hamlet").client.post("/users/me/presence", {}),
        400,
        "Missing 'status' argument",
        "REQUEST_VARIABLE_MISSING",
      );
      expectError(await ping(u("hamlet"), { status: "away" }), 400, "Invalid status: away");
      expectError(await ping(u("hamlet"), { ping_only: "sometimes" }), 400, "ping_only is not a boolean");
      expectError(await ping(u("hamlet"), { last_update_id: "x" }), 400, "last_update_id is not an integer");
      expectError(
        await ping(u("hamlet"), { history_limit_days: 1.5 }),
        400,
        "history_limit_days is not an integer",
      );
      const body = expectSuccess(await u("othello").client.get("/realm/presence"));
      expect(body.presences).to.deep.equal({});
    });

    it("in an organization with presence disabled, records pings but shows nobody", async function () {
      const { realm, u } = await fresh();
      await setRealmPresenceDisabled(realm, true);
      const body = expectSuccess(await ping(u("hamlet"), { last_update_id: 3 }));
      expect(body.presences).to.deep.equal({});
      expect(body.presence_last_update_id).to.equal(-1);
      expect(expectSuccess(await u("othello").client.get("/realm/presence")).presences).to.deep.equal({});
      expectError(
        await u("othello").client.get(`/users/${u("hamlet").id}/presence`),
        400,
        `No presence data for ${u("hamlet").id}`,
      );
      await setRealmPresenceDisabled(realm, false);
      const shown = expectSuccess(await u("othello").client.get("/realm/presence"));
      expect(Object.keys(shown.presences)).to.deep.equal(["hamlet@zulip.test"]);
    });
  });

  describe("everyone's presence, kept up to date between polls", function () {
    it("matches a record-by-record read through pings, renames, deactivation and time passing", async function () {
      const { realm, u } = await fresh();
      const kept = async (params: Params): Promise<{ presences: object; presence_last_update_id: number }> =>
        expectSuccess(await u("hamlet").client.post("/users/me/presence", { status: "idle", ...params })) as {
          presences: object;
          presence_last_update_id: number;
        };
      // A 30-day window is read record by record; with nobody older than 14 days it must agree.
      const expectWindowsAgree = async () => {
        for (const slim of [true, false]) {
          const fast = await kept({ slim_presence: slim });
          const slow = await kept({ slim_presence: slim, history_limit_days: 30 });
          expect(fast.presences).to.deep.equal(slow.presences);
          expect(fast.presence_last_update_id).to.equal(slow.presence_last_update_id);
        }
      };
      await expectWindowsAgree();
      expectSuccess(await ping(u("othello")));
      expectSuccess(await ping(u("cordelia"), { status: "idle" }));
      await expectWindowsAgree();
      minutes(2);
      expectSuccess(await ping(u("othello"), { status: "idle" }));
      expectSuccess(await ping(u("prospero")));
      await expectWindowsAgree();
      expectSuccess(
        await u("desdemona").client.patch(`/users/${u("othello").id}`, { new_email: "moor@zulip.test" }),
      );
      await expectWindowsAgree();
      expectSuccess(await u("iago").client.delete(`/users/${u("cordelia").id}`));
      await expectWindowsAgree();
      expectSuccess(await u("iago").client.post(`/users/${u("cordelia").id}/reactivate`));
      await expectWindowsAgree();
      const legacy = await kept({});
      expect(Object.keys(legacy.presences).sort()).to.deep.equal(
        ["cordelia@zulip.test", "hamlet@zulip.test", "moor@zulip.test", "prospero@zulip.test"].sort(),
      );
      await server.factory.user(realm.id, "yorick-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u("hamlet").id,
      });
      await expectWindowsAgree();
      // Fifteen days on, only Hamlet (who keeps polling) is within the window.
      server.clock.advance(15 * 86_400_000);
      expect(Object.keys((await kept({ slim_presence: true })).presences)).to.deep.equal([
        String(u("hamlet").id),
      ]);
    });

    it("still gives a client with data (last_update_id > 0) every later change, however old", async function () {
      const { u } = await fresh();
      const first = expectSuccess(await ping(u("hamlet"), { last_update_id: -1 }));
      expectSuccess(await ping(u("othello"), { ping_only: true }));
      server.clock.advance(20 * 86_400_000);
      // The default poll no longer shows Othello, yet a client that saw only Hamlet's
      // update gets Othello's later one.
      expect(
        Object.keys(expectSuccess(await ping(u("cordelia"), { slim_presence: true })).presences),
      ).to.not.include(String(u("othello").id));
      const since = expectSuccess(
        await ping(u("cordelia"), { last_update_id: first.presence_last_update_id as number }),
      );
      expect(Object.keys(since.presences)).to.include(String(u("othello").id));
    });
  });

  describe("GET /realm/presence", function () {
    it("gives everyone's presence in the legacy format, to bots too", async function () {
      const { realm, u } = await fresh();
      expectSuccess(await ping(u("hamlet")));
      const bot = await server.factory.user(realm.id, "yorick-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u("hamlet").id,
      });
      for (const client of [u("polonius").client, bot.client]) {
        const body = expectSuccess(await client.get("/realm/presence"));
        expect(body).to.have.all.keys("result", "msg", "presences", "server_timestamp");
        expect(Object.keys(body.presences)).to.deep.equal(["hamlet@zulip.test"]);
        expect(body.presences["hamlet@zulip.test"]).to.have.all.keys("aggregated", "website");
      }
    });
  });

  describe("GET /users/{user_id_or_email}/presence", function () {
    it("gives one user's presence by ID or email, legacy or modern", async function () {
      const { u } = await fresh();
      expectSuccess(await ping(u("hamlet")));
      const t = now();
      for (const key of [String(u("hamlet").id), "hamlet@zulip.test"]) {
        const body = expectSuccess(
          await u("othello").client.get(`/users/${encodeURIComponent(key)}/presence`),
        );
        expect(body.presence).to.have.all.keys("aggregated", "website");
        expect(body.presence.aggregated).to.deep.equal(body.presence.website);
        expect(body.presence.website).to.have.all.keys("status", "timestamp");
        expect(body.presence.website.status).to.equal("active");
        expect(body.presence.website.timestamp).to.be.closeTo(t, 2);
      }
      const slim = expectSuccess(
        await u("othello").client.get(`/users/${u("hamlet").id}/presence`, { slim_presence: true }),
      );
      expect(slim.presence).to.have.all.keys("active_timestamp", "idle_timestamp");
      // Past the offline threshold the aggregated status says so.
      minutes(4);
      const old = expectSuccess(await u("othello").client.get(`/users/${u("hamlet").id}/presence`));
      expect(old.presence.aggregated.status).to.equal("offline");
      expect(old.presence.website.status).to.equal("active");
    });

    it("refuses unknown, deactivated and bot users, and users with no presence", async function () {
      const { realm, u } = await fresh();
      const get = (key: string | number) => u("othello").client.get(`/users/${key}/presence`);
      expectError(await get(999999), 400, "No such user");
      expectError(await get("nobody@zulip.test"), 400, "No such user");
      expectSuccess(await ping(u("cordelia")));
      expectSuccess(await u("iago").client.delete(`/users/${u("cordelia").id}`));
      expectError(await get(u("cordelia").id), 400, "No such user");
      const bot = await server.factory.user(realm.id, "yorick-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u("hamlet").id,
      });
      expectError(await get(bot.id), 400, "Presence is not supported for bot users.");
      expectError(await get(u("hamlet").id), 400, `No presence data for ${u("hamlet").id}`);
      expectError(await get("hamlet@zulip.test"), 400, "No presence data for hamlet@zulip.test");
    });
  });

  describe("presence_enabled off (invisible mode)", function () {
    it("shows the user offline since shortly before, and ignores their pings until it is on again", async function () {
      const { u } = await fresh();
      minutes(10);
      expectSuccess(await ping(u("hamlet")));
      expectSuccess(await u("hamlet").client.post("/users/me/status", { away: true }));
      const off = now();
      const seen = async () =>
        expectSuccess(
          await u("othello").client.get(`/users/${u("hamlet").id}/presence`, { slim_presence: true }),
        ).presence as { active_timestamp: number; idle_timestamp: number };
      const hidden = await seen();
      expect(hidden.idle_timestamp).to.be.closeTo(off - 320, 2);
      const legacy = expectSuccess(await u("othello").client.get("/realm/presence")).presences[
        "hamlet@zulip.test"
      ];
      expect(legacy.website.status).to.equal("idle");
      expect(
        expectSuccess(await u("othello").client.get(`/users/${u("hamlet").id}/presence`)).presence.aggregated
          .status,
      ).to.equal("offline");
      minutes(2);
      expectSuccess(await ping(u("hamlet")));
      expect(await seen()).to.deep.equal(hidden);
      expectSuccess(await u("hamlet").client.post("/users/me/status", { away: false }));
      const shown = await seen();
      expect(shown.active_timestamp).to.be.closeTo(now(), 2);
      expect(shown.idle_timestamp).to.equal(shown.active_timestamp);
    });

    it("is the same through PATCH /settings presence_enabled", async function () {
      const { u } = await fresh();
      minutes(10);
      expectSuccess(await ping(u("hamlet")));
      const seen = async () =>
        expectSuccess(
          await u("othello").client.get(`/users/${u("hamlet").id}/presence`, { slim_presence: true }),
        ).presence as { active_timestamp: number; idle_timestamp: number };
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: false }));
      const off = now();
      const hidden = await seen();
      expect(hidden.idle_timestamp).to.be.closeTo(off - 320, 2);
      expect(
        expectSuccess(await u("othello").client.get(`/users/${u("hamlet").id}/presence`)).presence.aggregated
          .status,
      ).to.equal("offline");
      minutes(2);
      expectSuccess(await ping(u("hamlet")));
      expect(await seen()).to.deep.equal(hidden);
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: true }));
      const shown = await seen();
      expect(shown.active_timestamp).to.be.closeTo(now(), 2);
      expect(shown.idle_timestamp).to.equal(shown.active_timestamp);
      // Sending the value it already has changes nothing.
      minutes(3);
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: true }));
      expect(await seen()).to.deep.equal(shown);
    });
  });
});
