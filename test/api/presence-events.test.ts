import { expect } from "chai";
import { Client, expectSuccess, type Params } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { doCreateUser } from "../../src/actions/user-create.js";
import { ROLE } from "../../src/world/roles.js";

describe("presence: register state, events, storage", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const now = () => Math.floor(server.clock.nowMs() / 1000);
  const minutes = (n: number) => server.clock.advance(n * 60_000);
  const ping = async (u: TestUser, params: Params = {}): Promise<void> => {
    expectSuccess(
      await u.client.post("/users/me/presence", { status: "active", ping_only: true, ...params }),
    );
  };
  const fresh = async () => {
    const realm = await server.factory.realm();
    // Long enough ago that date_joined does not count as recent activity.
    minutes(10);
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const strip = (events: Array<Record<string, unknown>>) => events.map(({ id: _id, ...e }) => e);
  const queues = async (u: TestUser) => ({
    legacy: (await register(u.client, { event_types: ["presence"] })).queue_id as string,
    slim: (await register(u.client, { event_types: ["presence"], slim_presence: true })).queue_id as string,
    modern: (
      await register(u.client, {
        event_types: ["presence"],
        client_capabilities: { simplified_presence_events: true },
      })
    ).queue_id as string,
  });
  const setRealmPresenceDisabled = async (realm: TestRealm, disabled: boolean) => {
    await server.app.knex("realms").where({ id: realm.id }).update({ presence_disabled: disabled });
    server.app.realms.invalidate(realm.id);
  };

  describe("events", function () {
    it("tell everyone of a first ping, in the legacy, slim and modern shapes", async function () {
      const { realm, u } = await fresh();
      const q = await queues(u("othello"));
      const bot = await server.factory.user(realm.id, "yorick-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u("othello").id,
      });
      const botQueue = (await register(bot.client, { event_types: ["presence"] })).queue_id as string;
      await ping(u("hamlet"));
      const t = now();
      const hamlet = u("hamlet").id;
      const [legacy] = strip(await pendingEvents(u("othello").client, q.legacy));
      expect(legacy).to.have.all.keys("type", "user_id", "email", "server_timestamp", "presence");
      expect(legacy!.server_timestamp).to.be.closeTo(server.clock.nowMs() / 1000, 2);
      const website = (legacy!.presence as { website: { timestamp: number } }).website;
      expect(website.timestamp).to.be.closeTo(t, 2);
      expect(legacy).to.deep.include({
        type: "presence",
        user_id: hamlet,
        email: "hamlet@zulip.test",
        presence: {
          website: { client: "website", status: "active", timestamp: website.timestamp, pushable: false },
        },
      });
      const slim = strip(await pendingEvents(u("othello").client, q.slim));
      const { email: _email, ...withoutEmail } = legacy!;
      expect(slim).to.deep.equal([withoutEmail]);
      expect(strip(await pendingEvents(u("othello").client, q.modern))).to.deep.equal([
        {
          type: "presence",
          presences: { [hamlet]: { active_timestamp: website.timestamp, idle_timestamp: website.timestamp } },
        },
      ]);
      expect(strip(await pendingEvents(bot.client, botQueue))).to.deep.equal([legacy]);
    });

    it("are sent only for a first ping or a return after more than 130 seconds away", async function () {
      const { u } = await fresh();
      await ping(u("hamlet"));
      const { legacy } = await queues(u("othello"));
      const events = async () => strip(await pendingEvents(u("othello").client, legacy));
      // Pinging every minute: nothing to tell.
      for (let i = 0; i < 3; i++) {
        minutes(1);
        await ping(u("hamlet"));
      }
      // Idle for a while, then idle again: not back online.
      minutes(5);
      await ping(u("hamlet"), { status: "idle" });
      expect(await events()).to.deep.equal([]);
      minutes(2);
      await ping(u("hamlet"));
      const back = await events();
      expect(back).to.have.lengthOf(1);
      expect(back[0]).to.deep.include({ user_id: u("hamlet").id });
      expect((back[0]!.presence as { website: { status: string } }).website.status).to.equal("active");
    });

    it("are not sent when the organization disabled presence", async function () {
      const { realm, u } = await fresh();
      await setRealmPresenceDisabled(realm, true);
      const { legacy } = await queues(u("othello"));
      await ping(u("hamlet"));
      expect(await pendingEvents(u("othello").client, legacy)).to.deep.equal([]);
    });

    it("above 100 active users, only turning presence_enabled on or off is told at once", async function () {
      const realm = await server.factory.realm({ hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
      await server.app.db.transaction(async (tx) => {
        for (let i = 0; i < 99; i++) {
          await doCreateUser(server.app, tx, {
            realmId: realm.id,
            email: `extra${i}@zulip.test`,
            fullName: `Extra ${i}`,
          });
        }
      });
      minutes(10);
      const [hamlet, othello] = [realm.users.hamlet!, realm.users.othello!];
      const { legacy } = await queues(othello);
      await ping(hamlet);
      expect(await pendingEvents(othello.client, legacy)).to.deep.equal([]);
      expectSuccess(await hamlet.client.post("/users/me/status", { away: true }));
      const events = strip(await pendingEvents(othello.client, legacy));
      expect(events).to.have.lengthOf(1);
      expect(events[0]).to.deep.include({ type: "presence", user_id: hamlet.id });
    });

    it("tell everyone when PATCH /settings turns presence_enabled off or on", async function () {
      const { u } = await fresh();
      await ping(u("hamlet"));
      const q = await queues(u("othello"));
      const hamlet = u("hamlet").id;
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: false }));
      const seen = async () =>
        expectSuccess(await u("othello").client.get(`/users/${hamlet}/presence`, { slim_presence: true }))
          .presence as Record<string, number>;
      const hiddenNow = await seen();
      expect(hiddenNow.idle_timestamp).to.be.closeTo(now() - 320, 2);
      expect(strip(await pendingEvents(u("othello").client, q.modern))).to.deep.equal([
        { type: "presence", presences: { [hamlet]: hiddenNow } },
      ]);
      const [hidden] = strip(await pendingEvents(u("othello").client, q.legacy));
      expect(hidden).to.deep.include({ type: "presence", user_id: hamlet, email: "hamlet@zulip.test" });
      expect((hidden!.presence as { website: { status: string } }).website.status).to.equal("idle");
      const seenSoFar = (await pendingEvents(u("othello").client, q.modern)).at(-1)!.id as number;
      minutes(1);
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: true }));
      const shown = await seen();
      expect(shown.active_timestamp).to.be.closeTo(now(), 2);
      const onEvents = await pendingEvents(u("othello").client, q.modern, seenSoFar);
      expect(strip(onEvents)).to.deep.equal([{ type: "presence", presences: { [hamlet]: shown } }]);
      // Unchanged: no event.
      expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: true }));
      expect(await pendingEvents(u("othello").client, q.modern, onEvents[0]!.id as number)).to.deep.equal([]);
    });
  });

  describe("register", function () {
    it("gives presences in the legacy format, or modern with slim_presence or simplified_presence_events", async function () {
      const { u } = await fresh();
      await ping(u("hamlet"));
      const t = now();
      const legacy = await register(u("othello").client, { fetch_event_types: ["presence"] });
      expect(legacy).to.include.keys("presences", "presence_last_update_id", "server_timestamp");
      expect(legacy.server_timestamp).to.be.closeTo(server.clock.nowMs() / 1000, 2);
      expect(Object.keys(legacy.presences)).to.deep.equal(["hamlet@zulip.test"]);
      expect(legacy.presences["hamlet@zulip.test"].aggregated).to.include({
        client: "website",
        status: "active",
      });
      const hamlet = String(u("hamlet").id);
      for (const params of [
        { slim_presence: true },
        { client_capabilities: { simplified_presence_events: true } },
      ]) {
        const state = await register(u("othello").client, { fetch_event_types: ["presence"], ...params });
        const entry = state.presences[hamlet];
        expect(entry.active_timestamp).to.be.closeTo(t, 2);
        expect(state.presences).to.deep.equal({
          [hamlet]: { active_timestamp: entry.active_timestamp, idle_timestamp: entry.active_timestamp },
        });
      }
      // The newest change's ID, as POST /users/me/presence reports it.
      const polled = expectSuccess(
        await u("othello").client.post("/users/me/presence", { status: "idle", last_update_id: -1 }),
      );
      expect(polled.presence_last_update_id).to.equal((legacy.presence_last_update_id as number) + 1);
      // Only when asked for.
      expect(await register(u("othello").client, { fetch_event_types: ["realm"] })).not.to.have.property(
        "presences",
      );
    });

    it("honours presence_history_limit_days and the organization's presence_disabled", async function () {
      const { realm, u } = await fresh();
      await ping(u("hamlet"));
      server.clock.advance(20 * 86_400_000);
      const state = (params: Params) =>
        register(u("othello").client, { fetch_event_types: ["presence"], ...params });
      expect((await state({})).presences).to.deep.equal({});
      expect(Object.keys((await state({ presence_history_limit_days: 30 })).presences)).to.deep.equal([
        "hamlet@zulip.test",
      ]);
      await setRealmPresenceDisabled(realm, true);
      const disabled = await state({ presence_history_limit_days: 30 });
      expect(disabled.presences).to.deep.equal({});
      expect(disabled.presence_last_update_id).to.equal(-1);
    });

    it("state plus presence events equals a fresh register (legacy and modern clients)", async function () {
      const { u } = await fresh();
      const act = async () => {
        await ping(u("hamlet"));
        await ping(u("cordelia"), { status: "idle" });
        minutes(3);
        await ping(u("hamlet"));
        expectSuccess(await u("cordelia").client.post("/users/me/status", { away: true }));
        minutes(1);
        expectSuccess(await u("othello").client.post("/users/me/status", { away: true }));
        expectSuccess(await u("othello").client.post("/users/me/status", { away: false }));
        minutes(1);
        expectSuccess(await u("hamlet").client.patch("/settings", { presence_enabled: false }));
        expectSuccess(await u("cordelia").client.patch("/settings", { presence_enabled: true }));
      };
      const events = await verifyRegisterParity(u("iago").client, {}, act);
      expect(events.filter((e) => e.type === "presence")).to.have.lengthOf(8);
      const modern = await verifyRegisterParity(
        u("iago").client,
        { client_capabilities: { simplified_presence_events: true } },
        act,
      );
      expect(modern.filter((e) => e.type === "presence").every((e) => "presences" in e)).to.equal(true);
    });
  });

  describe("storage", function () {
    it("keeps pings in memory, writes them in one batch, and survives a restart", async function () {
      const restartable = await startTestServer({}, { keepDataDir: true });
      try {
        const realm = await restartable.factory.realm({ hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
        const [hamlet, othello] = [realm.users.hamlet!, realm.users.othello!];
        const rows = () => restartable.app.knex("user_presence").whereIn("user_id", [hamlet.id, othello.id]);
        for (const user of [hamlet, othello]) {
          expectSuccess(await user.client.post("/users/me/presence", { status: "active", ping_only: true }));
        }
        // Not written yet, yet every read sees it.
        expect(await rows()).to.deep.equal([]);
        const before = expectSuccess(
          await othello.client.post("/users/me/presence", { status: "active", last_update_id: -1 }),
        );
        expect(Object.keys(before.presences)).to.have.lengthOf(2);
        await restartable.app.presence.flush();
        expect(restartable.app.presence.unflushed).to.equal(0);
        expect(
          (await rows()).map((r: { last_update_id: number }) => Number(r.last_update_id)).sort(),
        ).to.deep.equal([1_000_001, 1_000_002]); // a run starts a realm's sequence 1,000,000 on
        restartable.clock.advance(120_000);
        expectSuccess(await hamlet.client.post("/users/me/presence", { status: "idle", ping_only: true }));
        // Graceful shutdown writes what is left.
        await restartable.stop();
        const restarted = await startTestServer({}, { dataDir: restartable.dataDir });
        try {
          const moved = new Client(restarted.url, othello.client.credentials);
          const after = expectSuccess(
            await moved.post("/users/me/presence", { status: "active", last_update_id: -1 }),
          );
          expect(after.presences[hamlet.id].idle_timestamp).to.be.greaterThan(
            before.presences[hamlet.id].idle_timestamp as number,
          );
          // The sequence goes on where it stopped.
          expect(after.presence_last_update_id).to.be.greaterThan(before.presence_last_update_id as number);
        } finally {
          await restarted.close();
        }
      } finally {
        await restartable.close();
      }
    });
  });
});
