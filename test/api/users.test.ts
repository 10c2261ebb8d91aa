import { createHash } from "node:crypto";
import { expect } from "chai";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, TEST_HOST, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

const gravatar = (email: string, version = 1) =>
  `https://secure.gravatar.com/avatar/${createHash("md5").update(email.toLowerCase()).digest("hex")}?d=identicon&version=${version}`;

const USER_KEYS = [
  "avatar_url",
  "avatar_version",
  "bot_owner_id",
  "bot_type",
  "date_joined",
  "delivery_email",
  "email",
  "full_name",
  "is_active",
  "is_admin",
  "is_bot",
  "is_guest",
  "is_imported_stub",
  "is_owner",
  "role",
  "timezone",
  "user_id",
];

describe("users: records, lookup and email visibility", function () {
  let server: TestServer;
  let realm: TestRealm;
  let hidden: TestUser; // email visible to administrators only
  let modsOnly: TestUser; // email visible to moderators and up
  let nobody: TestUser; // email visible to nobody
  let bot: TestUser;
  const u = (name: string) => realm.users[name]!;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    hidden = await server.factory.user(realm.id, "ophelia", 400, { emailAddressVisibility: 3 });
    modsOnly = await server.factory.user(realm.id, "gertrude", 400, { emailAddressVisibility: 5 });
    nobody = await server.factory.user(realm.id, "yorick", 400, { emailAddressVisibility: 4 });
    bot = await server.factory.user(realm.id, "fool-bot", 400, { isBot: true, botOwnerId: u("hamlet").id });
  });
  after(async function () {
    await server.close();
  });

  it("GET /users lists every user with Zulip's User record keys", async function () {
    const body = expectSuccess(await u("hamlet").client.get("/users"));
    const members = body.members as Array<Record<string, unknown>>;
    expect(members.map((m) => m.user_id)).to.include.members([u("desdemona").id, bot.id, nobody.id]);
    for (const member of members) expect(Object.keys(member).sort()).to.deep.equal(USER_KEYS);
    const hamlet = members.find((m) => m.user_id === u("hamlet").id)!;
    expect(hamlet).to.include({
      email: "hamlet@zulip.test",
      delivery_email: "hamlet@zulip.test",
      full_name: "Hamlet Dane",
      role: 400,
      is_admin: false,
      is_owner: false,
      is_guest: false,
      is_bot: false,
      bot_type: null,
      bot_owner_id: null,
      is_active: true,
      is_imported_stub: false,
    });
    expect(hamlet.date_joined).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d\+00:00$/);
    const fool = members.find((m) => m.user_id === bot.id)!;
    expect(fool).to.include({ is_bot: true, bot_type: 1, bot_owner_id: u("hamlet").id });
    const owner = members.find((m) => m.user_id === u("desdemona").id)!;
    expect(owner).to.include({ role: 100, is_owner: true, is_admin: true });
    const guest = members.find((m) => m.user_id === u("polonius").id)!;
    expect(guest).to.include({ role: 600, is_guest: true, is_admin: false });
  });

  it("hides real emails by visibility and role, and uses the dummy address as API email", async function () {
    const visible = async (viewer: TestUser, target: TestUser) => {
      const res = await viewer.client.get(`/users/${target.id}`);
      return expectSuccess(res).user as Record<string, unknown>;
    };
    expect(hidden.email).to.equal(`user${hidden.id}@${TEST_HOST}`);
    // Administrators-only visibility: admins see it, moderators and members do not.
    expect((await visible(u("iago"), hidden)).delivery_email).to.equal("ophelia@zulip.test");
    expect((await visible(u("desdemona"), hidden)).delivery_email).to.equal("ophelia@zulip.test");
    expect((await visible(u("prospero"), hidden)).delivery_email).to.equal(null);
    expect((await visible(u("hamlet"), hidden)).delivery_email).to.equal(null);
    expect((await visible(u("hamlet"), hidden)).email).to.equal(`user${hidden.id}@${TEST_HOST}`);
    // Moderators-only visibility.
    expect((await visible(u("prospero"), modsOnly)).delivery_email).to.equal("gertrude@zulip.test");
    expect((await visible(u("hamlet"), modsOnly)).delivery_email).to.equal(null);
    // Nobody: only the user themself.
    expect((await visible(u("desdemona"), nobody)).delivery_email).to.equal(null);
    expect((await visible(nobody, nobody)).delivery_email).to.equal("yorick@zulip.test");
    // Guests see only public emails; bots' emails are never hidden.
    expect((await visible(u("polonius"), u("hamlet"))).delivery_email).to.equal("hamlet@zulip.test");
    expect((await visible(u("polonius"), hidden)).delivery_email).to.equal(null);
    expect((await visible(u("polonius"), bot)).delivery_email).to.equal("fool-bot@zulip.test");
  });

  it("applies the client_gravatar rule: null only where the requester can see the real email", async function () {
    const avatar = async (viewer: TestUser, target: TestUser, params = {}) =>
      (expectSuccess(await viewer.client.get(`/users/${target.id}`, params)).user as Record<string, unknown>)
        .avatar_url;
    // client_gravatar defaults to true.
    expect(await avatar(u("hamlet"), u("othello"))).to.equal(null);
    expect(await avatar(u("iago"), hidden)).to.equal(null);
    // A requester who cannot see the email gets the deterministic URL.
    expect(await avatar(u("hamlet"), hidden)).to.equal(gravatar("ophelia@zulip.test"));
    expect(await avatar(u("hamlet"), u("othello"), { client_gravatar: false })).to.equal(
      gravatar("othello@zulip.test"),
    );
    const list = expectSuccess(await u("hamlet").client.get("/users", { client_gravatar: false }));
    expect(list.members.every((m: { avatar_url: unknown }) => typeof m.avatar_url === "string")).to.equal(
      true,
    );
  });

  it("GET /users/{email}: real email only where visible, the dummy address for anyone", async function () {
    const byEmail = (viewer: TestUser, email: string) =>
      viewer.client.get(`/users/${encodeURIComponent(email)}`);
    expect(expectSuccess(await byEmail(u("hamlet"), "othello@zulip.test")).user.user_id).to.equal(
      u("othello").id,
    );
    expect(expectSuccess(await byEmail(u("hamlet"), "OTHELLO@zulip.test")).user.user_id).to.equal(
      u("othello").id,
    );
    expectError(await byEmail(u("hamlet"), "ophelia@zulip.test"), 400, "No such user");
    expect(expectSuccess(await byEmail(u("iago"), "ophelia@zulip.test")).user.user_id).to.equal(hidden.id);
    expect(expectSuccess(await byEmail(u("hamlet"), `user${hidden.id}@${TEST_HOST}`)).user.user_id).to.equal(
      hidden.id,
    );
    expect(expectSuccess(await byEmail(u("hamlet"), `user${nobody.id}@${TEST_HOST}`)).user.user_id).to.equal(
      nobody.id,
    );
    expectError(await byEmail(u("hamlet"), "nobody@zulip.test"), 400, "No such user");
    expectError(await u("hamlet").client.get("/users/999999"), 400, "No such user");
  });

  it("GET /users/me includes profile_data for humans", async function () {
    const me = expectSuccess(await u("hamlet").client.get("/users/me"));
    expect(me.profile_data).to.deep.equal({});
    expect(me.avatar_url).to.equal(gravatar("hamlet@zulip.test"));
    const botMe = expectSuccess(await bot.client.get("/users/me"));
    expect(botMe).not.to.have.property("profile_data");
  });
});

describe("users: POST /users", function () {
  let server: TestServer;
  let realm: TestRealm;
  const u = (name: string) => realm.users[name]!;
  const userCount = async () =>
    (expectSuccess(await u("hamlet").client.get("/users")).members as unknown[]).length;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
  });
  after(async function () {
    await server.close();
  });

  const create = (client: Client, params: Record<string, string>) =>
    client.post("/users", {
      email: "horatio@zulip.test",
      password: "horatio-pw",
      full_name: "Horatio",
      ...params,
    });

  it("creates a user who can then log in, and tells the realm", async function () {
    const { queue_id } = await register(u("othello").client, { event_types: ["realm_user", "user_group"] });
    const body = expectSuccess(await create(u("desdemona").client, {}));
    expect(body.user_id).to.be.a("number");
    const user = expectSuccess(await u("hamlet").client.get(`/users/${body.user_id}`)).user;
    expect(user).to.include({
      full_name: "Horatio",
      email: "horatio@zulip.test",
      role: 400,
      is_active: true,
    });
    const login = expectSuccess(
      await server.anonymous.post("/fetch_api_key", {
        username: "horatio@zulip.test",
        password: "horatio-pw",
      }),
    );
    expect(login.user_id).to.equal(body.user_id);

    const events = await pendingEvents(u("othello").client, queue_id);
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal([
      "realm_user/add",
      "user_group/add_members",
      "user_group/add_members",
    ]);
    expect(events[0]!.person).to.include({ user_id: body.user_id, full_name: "Horatio" });
    expect(events[0]!.person.profile_data).to.deep.equal({});
    const snapshot = await server.app.realms.get(server.app.knex, realm.id);
    expect(events[1]).to.deep.include({
      group_id: snapshot.systemGroupId("role:members"),
      user_ids: [body.user_id],
    });
    expect(events[2]).to.deep.include({ group_id: snapshot.systemGroupId("role:fullmembers") });
  });

  it("is for administrators holding can_create_users", async function () {
    const before = await userCount();
    expectError(
      await create(u("hamlet").client, { email: "x1@zulip.test" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await create(u("prospero").client, { email: "x2@zulip.test" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await create(u("iago").client, { email: "x3@zulip.test" }),
      400,
      "User not authorized to create users",
    );
    expect(await userCount()).to.equal(before);
  });

  it("refuses an email in use, an invalid email, bad names and weak passwords", async function () {
    const owner = u("desdemona").client;
    const before = await userCount();
    expectError(
      await create(owner, { email: "Hamlet@Zulip.test" }),
      400,
      "Email 'Hamlet@Zulip.test' already in use",
    );
    expectError(await create(owner, { email: "not-an-email" }), 400, "Bad name or username");
    expectError(
      await create(owner, { email: "n1@zulip.test", full_name: "  " }),
      400,
      "Name must not be empty!",
    );
    expectError(
      await create(owner, { email: "n2@zulip.test", full_name: "x".repeat(101) }),
      400,
      "Name too long!",
    );
    expectError(
      await create(owner, { email: "n3@zulip.test", full_name: "Ham*let" }),
      400,
      "Invalid characters in name!",
    );
    expectError(await create(owner, { email: "n4@zulip.test", full_name: "Ham|12" }), 400, "Invalid format!");
    expectError(
      await create(owner, { email: "n5@zulip.test", password: "abc" }),
      400,
      "The password is too weak.",
    );
    expectError(
      await owner.post("/users", { email: "n6@zulip.test", full_name: "N" }),
      400,
      "Missing 'password' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expect(await userCount()).to.equal(before);
  });

  it("register state plus the creation's events equals a fresh register", async function () {
    await verifyRegisterParity(u("iago").client, {}, async () => {
      expectSuccess(
        await create(u("desdemona").client, { email: "laertes@zulip.test", full_name: "Laertes" }),
      );
    });
  });
});

describe("users: PATCH /users/{user_id} and /users/{email}", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const userOf = async (viewer: TestUser, id: number) =>
    expectSuccess(await viewer.client.get(`/users/${id}`, { client_gravatar: false })).user as Record<
      string,
      unknown
    >;
  const directGroups = async (userId: number) =>
    (
      await server.app
        .knex("user_group_members as m")
        .join("user_groups as g", "g.id", "m.group_id")
        .where({ "m.user_id": userId, "g.is_system_group": true })
        .orderBy("g.name")
        .pluck<string[]>("g.name")
    ).sort();

  it("changes the full name; a blank name is ignored; bad names are refused", async function () {
    const { u } = await fresh();
    const admin = u("iago").client;
    const hamlet = u("hamlet");
    expectSuccess(await admin.patch(`/users/${hamlet.id}`, { full_name: "  Prince Hamlet " }));
    expect((await userOf(hamlet, hamlet.id)).full_name).to.equal("Prince Hamlet");
    expectSuccess(await admin.patch(`/users/${hamlet.id}`, { full_name: "   " }));
    expect((await userOf(hamlet, hamlet.id)).full_name).to.equal("Prince Hamlet");
    expectError(
      await admin.patch(`/users/${hamlet.id}`, { full_name: "a@b" }),
      400,
      "Invalid characters in name!",
    );
    expectError(
      await admin.patch(`/users/${hamlet.id}`, { full_name: "x".repeat(101) }),
      400,
      "Name too long!",
    );
    expect((await userOf(hamlet, hamlet.id)).full_name).to.equal("Prince Hamlet");
  });

  it("refuses non-administrators on every field, changing nothing", async function () {
    const { u } = await fresh();
    const othello = u("othello");
    for (const caller of ["hamlet", "prospero", "polonius"]) {
      for (const params of [{ full_name: "Moor" }, { role: 200 }, { new_email: "moor@zulip.test" }]) {
        expectError(
          await u(caller).client.patch(`/users/${othello.id}`, params),
          400,
          "Must be an organization administrator",
          "UNAUTHORIZED_PRINCIPAL",
        );
      }
    }
    expect(await userOf(othello, othello.id)).to.include({
      full_name: "Othello Dane",
      role: 400,
      delivery_email: "othello@zulip.test",
    });
  });

  it("changes roles and moves the user between the role system groups, with events", async function () {
    const { realm, u } = await fresh();
    const hamlet = u("hamlet");
    expect(await directGroups(hamlet.id)).to.deep.equal(["role:fullmembers", "role:members"]);
    const { queue_id } = await register(u("othello").client, { event_types: ["realm_user", "user_group"] });
    expectSuccess(await u("iago").client.patch(`/users/${hamlet.id}`, { role: 300 }));
    expect(await userOf(hamlet, hamlet.id)).to.include({ role: 300, is_admin: false });
    expect(await directGroups(hamlet.id)).to.deep.equal(["role:moderators"]);
    const snapshot = await server.app.realms.get(server.app.knex, realm.id);
    const events = await pendingEvents(u("othello").client, queue_id);
    expect(events.map(({ id: _id, ...e }) => e)).to.deep.equal([
      { type: "realm_user", op: "update", person: { user_id: hamlet.id, role: 300 } },
      {
        type: "user_group",
        op: "remove_members",
        group_id: snapshot.systemGroupId("role:members"),
        user_ids: [hamlet.id],
      },
      {
        type: "user_group",
        op: "add_members",
        group_id: snapshot.systemGroupId("role:moderators"),
        user_ids: [hamlet.id],
      },
      {
        type: "user_group",
        op: "remove_members",
        group_id: snapshot.systemGroupId("role:fullmembers"),
        user_ids: [hamlet.id],
      },
    ]);
    // The same role again changes nothing and sends nothing.
    expectSuccess(await u("iago").client.patch(`/users/${hamlet.id}`, { role: 300 }));
    expect(await pendingEvents(u("othello").client, queue_id, events.at(-1)!.id)).to.deep.equal([]);
    // A moderator really is one now: the realm's moderators group includes them.
    expect(snapshot.recursiveMembers(snapshot.systemGroupId("role:moderators")).has(hamlet.id)).to.equal(
      true,
    );
  });

  it("accepts only roles 100, 200, 300, 400 and 600", async function () {
    const { u } = await fresh();
    const admin = u("desdemona").client;
    const target = u("othello").id;
    expectError(await admin.patch(`/users/${target}`, { role: 500 }), 400, "Invalid role");
    expectError(await admin.patch(`/users/${target}`, { role: 0 }), 400, "Invalid role");
    expectError(await admin.patch(`/users/${target}`, { role: "admin" }), 400, "role is not valid JSON");
    expectError(await admin.patch(`/users/${target}`, { role: '"400"' }), 400, "role is not an integer");
    expect((await userOf(u("othello"), target)).role).to.equal(400);
  });

  it("lets only owners add or remove the owner role", async function () {
    const { u } = await fresh();
    const admin = u("iago").client;
    expectError(
      await admin.patch(`/users/${u("hamlet").id}`, { role: 100 }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await admin.patch(`/users/${u("desdemona").id}`, { role: 200 }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect((await userOf(u("hamlet"), u("hamlet").id)).role).to.equal(400);
    expect((await userOf(u("hamlet"), u("desdemona").id)).role).to.equal(100);
    // Administrators manage the other roles.
    expectSuccess(await admin.patch(`/users/${u("hamlet").id}`, { role: 200 }));
    expectSuccess(await admin.patch(`/users/${u("prospero").id}`, { role: 400 }));
    // An owner may make an owner, and then step down.
    const owner = u("desdemona").client;
    expectSuccess(await owner.patch(`/users/${u("hamlet").id}`, { role: 100 }));
    expectSuccess(await owner.patch(`/users/${u("desdemona").id}`, { role: 200 }));
    expect((await userOf(u("hamlet"), u("desdemona").id)).role).to.equal(200);
    expect(await directGroups(u("hamlet").id)).to.deep.equal(["role:owners"]);
  });

  it("never removes the owner role from the only owner", async function () {
    const { u } = await fresh();
    const owner = u("desdemona");
    expectError(
      await owner.client.patch(`/users/${owner.id}`, { role: 400 }),
      400,
      "The owner permission cannot be removed from the only organization owner.",
    );
    expect((await userOf(owner, owner.id)).role).to.equal(100);
  });

  it("refuses to make a guest an administrator (or owner), but allows other roles", async function () {
    const { u } = await fresh();
    const guest = u("polonius");
    expectError(
      await u("iago").client.patch(`/users/${guest.id}`, { role: 200 }),
      400,
      "Guests cannot be organization administrators",
    );
    expectError(
      await u("desdemona").client.patch(`/users/${guest.id}`, { role: 100 }),
      400,
      "Guests cannot be organization administrators",
    );
    expect((await userOf(guest, guest.id)).role).to.equal(600);
    expectSuccess(await u("iago").client.patch(`/users/${guest.id}`, { role: 400 }));
    expect(await directGroups(guest.id)).to.deep.equal(["role:fullmembers", "role:members"]);
  });

  it("finds the target by real email (where visible) or by dummy address", async function () {
    const { realm, u } = await fresh();
    const hidden = await server.factory.user(realm.id, "ophelia", 400, { emailAddressVisibility: 4 });
    const admin = u("iago").client;
    expectSuccess(
      await admin.patch(`/users/${encodeURIComponent("othello@zulip.test")}`, { full_name: "Moor" }),
    );
    expect((await userOf(u("iago"), u("othello").id)).full_name).to.equal("Moor");
    expectError(
      await admin.patch(`/users/${encodeURIComponent("ophelia@zulip.test")}`, { full_name: "Nun" }),
      400,
      "No such user",
    );
    expectSuccess(await admin.patch(`/users/${encodeURIComponent(hidden.email)}`, { full_name: "Nun" }));
    expect((await userOf(u("iago"), hidden.id)).full_name).to.equal("Nun");
    expectError(await admin.patch("/users/999999", { full_name: "Ghost" }), 400, "No such user");
  });

  it("changes the email: owners with can_change_user_emails only", async function () {
    const { u } = await fresh();
    const othello = u("othello");
    expectError(
      await u("iago").client.patch(`/users/${othello.id}`, { new_email: "moor@zulip.test" }),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    // A second owner, without the server-level permission.
    expectSuccess(await u("desdemona").client.patch(`/users/${u("iago").id}`, { role: 100 }));
    expectError(
      await u("iago").client.patch(`/users/${othello.id}`, { new_email: "moor@zulip.test" }),
      400,
      "Insufficient permission",
    );
    const owner = u("desdemona").client;
    expectError(await owner.patch(`/users/${othello.id}`, { new_email: "moor" }), 400, "Invalid address.");
    expectError(
      await owner.patch(`/users/${othello.id}`, { new_email: "hamlet@zulip.test" }),
      400,
      "Email 'hamlet@zulip.test' already in use",
    );
    expect((await userOf(othello, othello.id)).delivery_email).to.equal("othello@zulip.test");

    expectSuccess(await owner.patch(`/users/${othello.id}`, { new_email: "moor@zulip.test" }));
    const changed = await userOf(u("hamlet"), othello.id);
    expect(changed).to.include({ email: "moor@zulip.test", delivery_email: "moor@zulip.test" });
    expect(changed.avatar_url).to.equal(gravatar("moor@zulip.test"));
    // Othello now authenticates with the new address; the old one is refused.
    const moved = new Client(othello.client.baseUrl, {
      email: "moor@zulip.test",
      apiKey: othello.apiKey,
    });
    expectSuccess(await moved.get("/users/me"));
    expectError(await othello.client.get("/users/me"), 401, "Invalid API key", "INVALID_API_KEY");
  });

  it("sends delivery_email only to those who may see it; new_email only for public emails", async function () {
    const { realm, u } = await fresh();
    const hidden = await server.factory.user(realm.id, "ophelia", 400, { emailAddressVisibility: 3 });
    const admin = await register(u("iago").client, { event_types: ["realm_user"] });
    const member = await register(u("hamlet").client, { event_types: ["realm_user"] });
    expectSuccess(await u("desdemona").client.patch(`/users/${hidden.id}`, { new_email: "nun@zulip.test" }));
    const adminEvents = await pendingEvents(u("iago").client, admin.queue_id);
    const memberEvents = await pendingEvents(u("hamlet").client, member.queue_id);
    expect(adminEvents.map((e) => Object.keys(e.person).sort())).to.deep.equal([
      ["delivery_email", "user_id"],
      ["avatar_source", "avatar_url", "avatar_url_medium", "avatar_version", "user_id"],
    ]);
    expect(adminEvents[1]!.person.avatar_url).to.equal(null); // client_gravatar, email visible
    expect(memberEvents.map((e) => Object.keys(e.person).sort())).to.deep.equal([
      ["avatar_source", "avatar_url", "avatar_url_medium", "avatar_version", "user_id"],
    ]);
    expect(memberEvents[0]!.person.avatar_url).to.equal(gravatar("nun@zulip.test"));
    expect((await userOf(u("hamlet"), hidden.id)).email).to.equal(`user${hidden.id}@${TEST_HOST}`);
  });

  it("register state plus the events of every kind of change equals a fresh register", async function () {
    const { realm, u } = await fresh();
    const hidden = await server.factory.user(realm.id, "ophelia", 400, { emailAddressVisibility: 3 });
    const owner = u("desdemona").client;
    for (const [viewer, params] of [
      [u("iago"), {}],
      [u("hamlet"), {}],
      [u("polonius"), { client_gravatar: false }],
    ] as const) {
      const n = viewer.id;
      const events = await verifyRegisterParity(viewer.client, params, async () => {
        expectSuccess(await owner.patch(`/users/${u("othello").id}`, { full_name: `Othello ${n}` }));
        expectSuccess(await owner.patch(`/users/${u("cordelia").id}`, { role: 300 }));
        expectSuccess(await owner.patch(`/users/${u("cordelia").id}`, { role: 400 }));
        expectSuccess(await owner.patch(`/users/${u("othello").id}`, { new_email: `moor${n}@zulip.test` }));
        expectSuccess(await owner.patch(`/users/${hidden.id}`, { new_email: `nun${n}@zulip.test` }));
      });
      expect(events.filter((e) => e.type === "user_group")).to.have.length.greaterThan(0);
    }
  });
});

describe("users: deactivation and reactivation", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async () => {
    const realm = await server.factory.realm();
    return { realm, u: (name: string) => realm.users[name]! };
  };
  const isActive = async (viewer: TestUser, id: number) =>
    (expectSuccess(await viewer.client.get(`/users/${id}`)).user as { is_active: boolean }).is_active;

  it("deactivates a user and the bots they own; they can no longer authenticate", async function () {
    const { realm, u } = await fresh();
    const hamlet = u("hamlet");
    const bot = await server.factory.user(realm.id, "fool-bot", 400, { isBot: true, botOwnerId: hamlet.id });
    const otherBot = await server.factory.user(realm.id, "jester-bot", 400, {
      isBot: true,
      botOwnerId: u("othello").id,
    });
    const hamletQueue = await register(hamlet.client);
    const { queue_id } = await register(u("othello").client, { event_types: ["realm_user"] });
    expectSuccess(await u("iago").client.delete(`/users/${hamlet.id}`));
    expect(await isActive(u("othello"), hamlet.id)).to.equal(false);
    expect(await isActive(u("othello"), bot.id)).to.equal(false);
    expect(await isActive(u("othello"), otherBot.id)).to.equal(true);
    const events = await pendingEvents(u("othello").client, queue_id);
    expect(events.map((e) => e.person as unknown)).to.deep.equal([
      { user_id: bot.id, is_active: false },
      { user_id: hamlet.id, is_active: false },
    ]);
    expectError(await hamlet.client.get("/users/me"), 401, "Account is deactivated", "USER_DEACTIVATED");
    expectError(await bot.client.get("/users/me"), 401, "Account is deactivated", "USER_DEACTIVATED");
    // Their event queues are gone.
    expect(() => server.app.events.getQueue(hamletQueue.queue_id as string, hamlet.id)).to.throw();
  });

  it("drops the queues of the user and their bots, and no one else's", async function () {
    const { realm, u } = await fresh();
    const hamlet = u("hamlet");
    const bot = await server.factory.user(realm.id, "fool-bot", 400, { isBot: true, botOwnerId: hamlet.id });
    const hamletQueue = (await register(hamlet.client)).queue_id as string;
    const botQueue = (await register(bot.client)).queue_id as string;
    const othelloQueue = (await register(u("othello").client)).queue_id as string;
    expectSuccess(await u("iago").client.delete(`/users/${hamlet.id}`));
    expect(() => server.app.events.getQueue(botQueue, bot.id)).to.throw();
    await pendingEvents(u("othello").client, othelloQueue); // still there
    // Deactivated users cannot authenticate; once reactivated, the old queue is gone.
    expectSuccess(await u("iago").client.post(`/users/${hamlet.id}/reactivate`));
    expectError(
      await hamlet.client.get("/events", { queue_id: hamletQueue, last_event_id: -1, dont_block: true }),
      400,
      `Bad event queue ID: ${hamletQueue}`,
      "BAD_EVENT_QUEUE_ID",
    );
  });

  it("is for administrators; owners are deactivated only by owners", async function () {
    const { u } = await fresh();
    for (const caller of ["hamlet", "prospero", "polonius"]) {
      expectError(
        await u(caller).client.delete(`/users/${u("othello").id}`),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
    }
    expectError(
      await u("iago").client.delete(`/users/${u("desdemona").id}`),
      400,
      "Must be an organization owner",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect(await isActive(u("hamlet"), u("othello").id)).to.equal(true);
    expect(await isActive(u("hamlet"), u("desdemona").id)).to.equal(true);
  });

  it("never deactivates the only owner", async function () {
    const { u } = await fresh();
    const owner = u("desdemona");
    expectError(
      await owner.client.delete(`/users/${owner.id}`),
      400,
      "Cannot deactivate the only organization owner",
    );
    expect(await isActive(owner, owner.id)).to.equal(true);
    // With a second owner, the first may go.
    expectSuccess(await owner.client.patch(`/users/${u("iago").id}`, { role: 100 }));
    expectSuccess(await u("iago").client.delete(`/users/${owner.id}`));
    expect(await isActive(u("iago"), owner.id)).to.equal(false);
  });

  it("refuses unknown users, bots, deactivated users and malformed IDs", async function () {
    const { realm, u } = await fresh();
    const admin = u("iago").client;
    const bot = await server.factory.user(realm.id, "fool-bot", 400, {
      isBot: true,
      botOwnerId: u("hamlet").id,
    });
    expectError(await admin.delete("/users/999999"), 400, "No such user");
    expectError(await admin.delete(`/users/${bot.id}`), 400, "No such user");
    expectError(await admin.delete("/users/hamlet@zulip.test"), 400, "Invalid user_id");
    expectSuccess(await admin.delete(`/users/${u("othello").id}`));
    expectError(await admin.delete(`/users/${u("othello").id}`), 400, "User is deactivated");
    expect(await isActive(u("hamlet"), bot.id)).to.equal(true);
  });

  it("reactivates; refuses non-administrators; an active user stays as is", async function () {
    const { u } = await fresh();
    const othello = u("othello");
    expectSuccess(await u("iago").client.delete(`/users/${othello.id}`));
    expectError(
      await u("hamlet").client.post(`/users/${othello.id}/reactivate`),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect(await isActive(u("hamlet"), othello.id)).to.equal(false);
    expectError(await u("iago").client.post("/users/999999/reactivate"), 400, "No such user");
    const { queue_id } = await register(u("hamlet").client, { event_types: ["realm_user"] });
    expectSuccess(await u("iago").client.post(`/users/${othello.id}/reactivate`));
    expect(await isActive(u("hamlet"), othello.id)).to.equal(true);
    expectSuccess(await othello.client.get("/users/me"));
    expectSuccess(await u("iago").client.post(`/users/${othello.id}/reactivate`));
    const events = await pendingEvents(u("hamlet").client, queue_id);
    expect(events.map((e) => e.person as unknown)).to.deep.equal([{ user_id: othello.id, is_active: true }]);
  });

  it("register state plus deactivation and reactivation events equals a fresh register", async function () {
    const { realm, u } = await fresh();
    await server.factory.user(realm.id, "fool-bot", 400, { isBot: true, botOwnerId: u("hamlet").id });
    const events = await verifyRegisterParity(u("othello").client, {}, async () => {
      expectSuccess(await u("iago").client.delete(`/users/${u("hamlet").id}`));
      expectSuccess(await u("iago").client.delete(`/users/${u("cordelia").id}`));
      expectSuccess(await u("iago").client.post(`/users/${u("cordelia").id}/reactivate`));
    });
    const people = events.filter((e) => e.type === "realm_user");
    expect(people.map((e) => e.person.is_active as unknown)).to.deep.equal([false, false, false, true]);
    // Member lists show active users only: each (de)activation updates the user's groups.
    const cordelia = u("cordelia").id;
    const groupOps: unknown[] = events
      .filter((e) => e.type === "user_group" && (e.user_ids as number[]).includes(cordelia))
      .map((e) => e.op as unknown);
    expect(groupOps).to.deep.equal(["remove_members", "remove_members", "add_members", "add_members"]);
  });
});
