import { expect } from "chai";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { CAST, type TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { json, logIn } from "../helpers/web.js";
import { ROLE } from "../../src/world/roles.js";

describe("users: DELETE /users/me (deactivate own account)", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async (cast = CAST) => {
    const realm = await server.factory.realm(cast);
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const isActive = async (viewer: TestUser, id: number) =>
    (expectSuccess(await viewer.client.get(`/users/${id}`)).user as { is_active: boolean }).is_active;

  it("deactivates the caller and their bots: events go out, the API key and sessions stop working", async function () {
    const { realm, u } = await fresh();
    const hamlet = u("hamlet");
    const bot = await server.factory.user(realm.id, "fool-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: hamlet.id,
    });
    const session = await logIn(server, hamlet);
    const otherSession = await logIn(server, hamlet);
    expectSuccess(await json(server, otherSession, "GET", "/users/me"));
    const hamletQueue = (await register(hamlet.client)).queue_id as string;
    const { queue_id } = await register(u("othello").client, { event_types: ["realm_user"] });

    // The web client's settings page sends it over /json with the session.
    expectSuccess(await json(server, session, "DELETE", "/users/me"));

    expect(await isActive(u("othello"), hamlet.id)).to.equal(false);
    expect(await isActive(u("othello"), bot.id)).to.equal(false);
    const events = await pendingEvents(u("othello").client, queue_id);
    expect(events.map((e): unknown[] => [e.type, e.op, e.person])).to.deep.equal([
      ["realm_user", "update", { user_id: bot.id, is_active: false }],
      ["realm_user", "update", { user_id: hamlet.id, is_active: false }],
    ]);
    expectError(await hamlet.client.get("/users/me"), 401, "Account is deactivated", "USER_DEACTIVATED");
    expectError(await bot.client.get("/users/me"), 401, "Account is deactivated", "USER_DEACTIVATED");
    expect(() => server.app.events.getQueue(hamletQueue, hamlet.id)).to.throw();
    for (const s of [session, otherSession]) {
      expect((await json(server, s, "GET", "/users/me")).status).to.equal(401);
    }
    const sessions = await server.app.knex("sessions").where({ user_id: hamlet.id }).select("id");
    expect(sessions).to.deep.equal([]);
  });

  it("refuses the only organization owner with Zulip's error, changing nothing", async function () {
    const { u } = await fresh();
    const owner = u("desdemona");
    const session = await logIn(server, owner);
    const { queue_id } = await register(u("othello").client);
    const res = await owner.client.delete("/users/me");
    expectError(res, 400, "Cannot deactivate the only organization owner.", "CANNOT_DEACTIVATE_LAST_USER");
    expect(res.body).to.include({ is_last_owner: true, entity: "organization owner" });
    expect(await isActive(u("othello"), owner.id)).to.equal(true);
    expectSuccess(await owner.client.get("/users/me"));
    expectSuccess(await json(server, session, "GET", "/users/me"));
    expect(
      (await pendingEvents(u("othello").client, queue_id)).filter((e) => e.type !== "heartbeat"),
    ).to.deep.equal([]);
    // With a second owner, the first may leave.
    expectSuccess(await owner.client.patch(`/users/${u("iago").id}`, { role: ROLE.OWNER }));
    expectSuccess(await owner.client.delete("/users/me"));
    expect(await isActive(u("iago"), owner.id)).to.equal(false);
  });

  it("refuses the realm's only active user", async function () {
    const { u } = await fresh({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER });
    expectSuccess(await u("desdemona").client.delete(`/users/${u("hamlet").id}`));
    const res = await u("desdemona").client.delete("/users/me");
    expectError(res, 400, "Cannot deactivate the only user.", "CANNOT_DEACTIVATE_LAST_USER");
    expect(res.body).to.include({ is_last_owner: false, entity: "user" });
    expectSuccess(await u("desdemona").client.get("/users/me"));
  });

  it("lets guests, moderators, administrators and bots leave too (Zulip has no role check)", async function () {
    const { realm, u } = await fresh();
    const bot = await server.factory.user(realm.id, "fool-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u("hamlet").id,
    });
    for (const leaver of [u("polonius"), u("prospero"), u("iago"), bot]) {
      expectSuccess(await leaver.client.delete("/users/me"));
      expect(await isActive(u("othello"), leaver.id)).to.equal(false);
    }
    // A bot leaving takes nobody with it.
    expect(await isActive(u("othello"), u("hamlet").id)).to.equal(true);
  });

  it("register state plus the deactivation events equals a fresh register", async function () {
    const { realm, u } = await fresh();
    await server.factory.user(realm.id, "fool-bot", ROLE.MEMBER, { isBot: true, botOwnerId: u("hamlet").id });
    for (const viewer of [u("othello"), u("iago")]) {
      const events = await verifyRegisterParity(viewer.client, {}, async () => {
        const leaver = viewer === u("othello") ? u("hamlet") : u("cordelia");
        expectSuccess(await leaver.client.delete("/users/me"));
      });
      expect(events.some((e) => e.type === "realm_user" && e.person.is_active === false)).to.equal(true);
    }
  });
});
