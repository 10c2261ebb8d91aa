import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import { SYSTEM_GROUPS } from "../../src/world/system-groups.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import {
  createGroup,
  groupRecord,
  groupsById,
  setRealmGroupSetting,
  systemGroupId,
} from "../helpers/user-groups.js";

describe("user groups: POST /user_groups/create, GET /user_groups", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Record<string, TestUser>;
  let sys: (name: Parameters<typeof systemGroupId>[2]) => Promise<number>;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = realm.users;
    sys = (name) => systemGroupId(server, realm.id, name);
  });
  after(async function () {
    await server.close();
  });

  const namesOf = async () =>
    [...(await groupsById(u.desdemona!.client)).values()].map((g) => g.name as string);

  it("creates a group with Zulip's defaults and shows it in Zulip's record shape", async function () {
    const { hamlet, othello } = u;
    const res = await hamlet!.client.post("/user_groups/create", {
      name: "Gravediggers",
      description: "Dig *deep*",
      members: [othello!.id, hamlet!.id, othello!.id],
    });
    const body = expectSuccess(res);
    expect(Object.keys(body)).to.deep.equal(["result", "msg", "group_id"]);
    const group = await groupRecord(hamlet!.client, body.group_id);
    const creatorOnly = { direct_members: [hamlet!.id], direct_subgroups: [] };
    expect(Object.keys(group)).to.deep.equal([
      "id",
      "name",
      "creator_id",
      "date_created",
      "description",
      "members",
      "direct_subgroup_ids",
      "is_system_group",
      "can_add_members_group",
      "can_join_group",
      "can_leave_group",
      "can_manage_group",
      "can_mention_group",
      "can_remove_members_group",
      "deactivated",
    ]);
    expect(group).to.deep.equal({
      id: body.group_id,
      name: "Gravediggers",
      creator_id: hamlet!.id,
      date_created: group.date_created,
      description: "Dig *deep*",
      members: [hamlet!.id, othello!.id].sort((a, b) => a - b),
      direct_subgroup_ids: [],
      is_system_group: false,
      can_add_members_group: creatorOnly,
      can_join_group: await sys("role:nobody"),
      can_leave_group: await sys("role:everyone"),
      can_manage_group: creatorOnly,
      can_mention_group: await sys("role:everyone"),
      can_remove_members_group: await sys("role:nobody"),
      deactivated: false,
    });
    expect(group.date_created).to.be.closeTo(Math.floor(server.clock.nowMs() / 1000), 5);
  });

  it("lists system groups (sorted by ID, settings role:nobody) and never anonymous setting groups", async function () {
    await createGroup(u.hamlet!.client, "Players");
    const body = expectSuccess(await u.hamlet!.client.get("/user_groups"));
    const groups = body.user_groups as Array<Record<string, unknown>>;
    const ids = groups.map((g) => g.id as number);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    // The defaults created anonymous groups (creator-only sets); none is listed.
    expect(groups.every((g) => typeof g.name === "string" && g.name !== "")).to.equal(true);
    const nobody = await sys("role:nobody");
    for (const spec of SYSTEM_GROUPS) {
      const group = groups.find((g) => g.name === spec.name)!;
      expect(group, spec.name).to.include({ is_system_group: true, description: spec.description });
      expect(group.can_manage_group).to.equal(nobody);
    }
    const admins = groups.find((g) => g.name === "role:administrators")!;
    expect(admins.members).to.deep.equal([u.iago!.id]);
    expect(admins.direct_subgroup_ids).to.deep.equal([await sys("role:owners")]);
  });

  it("refuses guests and bots, creating nothing", async function () {
    const bot = await server.factory.user(realm.id, "yorick-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u.hamlet!.id,
    });
    const create = { name: "Intruders", description: "", members: [] };
    expectError(
      await u.polonius!.client.post("/user_groups/create", create),
      400,
      "Not allowed for guest users",
    );
    expectError(
      await bot.client.post("/user_groups/create", create),
      400,
      "This endpoint does not accept bot requests.",
    );
    expectError(await u.polonius!.client.get("/user_groups"), 400, "Not allowed for guest users");
    expectError(await bot.client.get("/user_groups"), 400, "This endpoint does not accept bot requests.");
    expect(await namesOf()).not.to.include("Intruders");
  });

  it("requires the members, name and description parameters", async function () {
    const client = u.hamlet!.client;
    expectError(
      await client.post("/user_groups/create", { name: "A", description: "" }),
      400,
      "Missing 'members' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await client.post("/user_groups/create", { name: "A", members: [] }),
      400,
      "Missing 'description' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await client.post("/user_groups/create", { name: "A", description: "", members: ["x"] }),
      400,
      "members[0] is not an integer",
    );
  });

  it("refuses unknown and deactivated users as members, and accepts bots", async function () {
    const client = u.hamlet!.client;
    const create = (name: string, members: number[]) =>
      client.post("/user_groups/create", { name, description: "", members });
    expectError(await create("Ghosts", [u.hamlet!.id, 99999]), 400, "Invalid user ID: 99999");
    const ghost = await server.factory.user(realm.id, "ghost");
    await server.app.knex("users").where({ id: ghost.id }).update({ is_active: false });
    server.app.realms.invalidate(realm.id);
    expectError(await create("Ghosts", [ghost.id]), 400, `Invalid user ID: ${ghost.id}`);
    expect(await namesOf()).not.to.include("Ghosts");

    const bot = await server.factory.user(realm.id, "osric-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u.hamlet!.id,
    });
    const id = await createGroup(client, "With a bot", { members: [bot.id] });
    expect((await groupRecord(client, id)).members).to.deep.equal([bot.id]);
  });

  it("checks the name: not empty, at most 100 characters, no reserved prefix, unique", async function () {
    const client = u.hamlet!.client;
    const create = (name: string) =>
      client.post("/user_groups/create", { name, description: "", members: [] });
    expectError(await create("   "), 400, "User group name can't be empty!");
    expectError(await create("x".repeat(101)), 400, "User group name cannot exceed 100 characters.");
    for (const prefix of ["@", "role:", "user:", "stream:", "channel:"]) {
      expectError(await create(`${prefix}gang`), 400, `User group name cannot start with '${prefix}'.`);
    }
    // 100 code points is fine, even when that is more UTF-16 units.
    expectSuccess(await create("🎭".repeat(100)));
    expectSuccess(await create("Chorus"));
    expectError(await create("Chorus"), 400, "User group 'Chorus' already exists.");
    // Exact match only: a different case is another name.
    expectSuccess(await create("chorus"));
    const names = await namesOf();
    expect(names.filter((n) => n === "Chorus")).to.have.lengthOf(1);
    expect(names).not.to.include("role:gang");
  });

  it("refuses a name already used by a deactivated group", async function () {
    const client = u.hamlet!.client;
    const id = await createGroup(client, "Retired players");
    expectSuccess(await client.post(`/user_groups/${id}/deactivate`));
    expectError(
      await client.post("/user_groups/create", { name: "Retired players", description: "", members: [] }),
      400,
      "User group 'Retired players' already exists.",
    );
  });

  it("takes the six settings as plain group-setting values, normalised as Zulip does", async function () {
    const { hamlet, othello, cordelia } = u;
    const helpers = await createGroup(hamlet!.client, "Helpers", { members: [cordelia!.id] });
    const id = await createGroup(hamlet!.client, "Configured", {
      can_add_members_group: helpers,
      can_join_group: { direct_members: [othello!.id, cordelia!.id], direct_subgroups: [helpers] },
      can_leave_group: await sys("role:members"),
      can_manage_group: { direct_members: [], direct_subgroups: [helpers] },
      can_mention_group: { direct_members: [], direct_subgroups: [] },
      can_remove_members_group: await sys("role:owners"),
    });
    const group = await groupRecord(hamlet!.client, id);
    expect(group).to.deep.include({
      can_add_members_group: helpers,
      can_join_group: {
        direct_members: [othello!.id, cordelia!.id].sort((a, b) => a - b),
        direct_subgroups: [helpers],
      },
      can_leave_group: await sys("role:members"),
      can_manage_group: helpers,
      can_mention_group: await sys("role:nobody"),
      can_remove_members_group: await sys("role:owners"),
    });
  });

  it("refuses setting values the setting does not allow, creating nothing", async function () {
    const client = u.hamlet!.client;
    const everyone = await sys("role:everyone");
    const internet = await sys("role:internet");
    const owners = await sys("role:owners");
    const create = (setting: string, value: unknown) =>
      client.post("/user_groups/create", {
        name: "Refused",
        description: "",
        members: [],
        [setting]: value as number,
      });
    const settings = [
      "can_add_members_group",
      "can_join_group",
      "can_leave_group",
      "can_manage_group",
      "can_mention_group",
      "can_remove_members_group",
    ];
    for (const setting of settings) {
      expectError(
        await create(setting, internet),
        400,
        `'${setting}' setting cannot be set to 'role:internet' group.`,
      );
    }
    for (const setting of [
      "can_add_members_group",
      "can_join_group",
      "can_manage_group",
      "can_remove_members_group",
    ]) {
      expectError(
        await create(setting, everyone),
        400,
        `'${setting}' setting cannot be set to 'role:everyone' group.`,
      );
    }
    // SPEC: can_mention_group may not be role:owners either.
    expectError(
      await create("can_mention_group", owners),
      400,
      "'can_mention_group' setting cannot be set to 'role:owners' group.",
    );
    expectError(await create("can_join_group", 99999), 400, "Invalid user group");
    expectError(
      await create("can_join_group", { direct_members: [99999], direct_subgroups: [] }),
      400,
      "Invalid user ID: 99999",
    );
    expectError(
      await create("can_join_group", { direct_members: [u.hamlet!.id], direct_subgroups: [88888] }),
      400,
      "Invalid user group ID: 88888",
    );
    expectError(await create("can_join_group", "soon"), 400, "can_join_group is not valid JSON");
    expectError(await create("can_join_group", [1]), 400, "can_join_group does not have the expected format");
    expect(await namesOf()).not.to.include("Refused");

    // The allowed system groups are accepted.
    expectSuccess(await create("can_leave_group", everyone));
    const id = (await groupsById(client)).values();
    expect([...id].some((g) => g.name === "Refused" && g.can_leave_group === everyone)).to.equal(true);
  });

  it("adds subgroups given on creation, whatever the new group's own permissions", async function () {
    const client = u.hamlet!.client;
    const a = await createGroup(client, "Sub A");
    const b = await createGroup(client, "Sub B");
    const nobody = await sys("role:nobody");
    const id = await createGroup(client, "Parent", {
      subgroups: [b, a, b],
      can_add_members_group: nobody,
      can_manage_group: nobody,
    });
    expect((await groupRecord(client, id)).direct_subgroup_ids).to.deep.equal([a, b]);
  });

  it("refuses unknown, anonymous and deactivated subgroups on creation, creating nothing", async function () {
    const client = u.hamlet!.client;
    const create = (subgroups: number[]) =>
      client.post("/user_groups/create", { name: "Orphan", description: "", members: [], subgroups });
    expectError(await create([99999]), 400, "Invalid user group ID: 99999");
    // The default can_manage_group of a new group is an anonymous group: not addressable.
    const anonymous = (await groupRecord(client, await createGroup(client, "Has anon"))).can_manage_group;
    expect(anonymous).to.be.an("object");
    const anonymousId = await server.app
      .knex("user_groups")
      .where({ realm_id: realm.id })
      .whereNull("name")
      .max<{ id: number }>("id as id")
      .first();
    expectError(await create([anonymousId!.id]), 400, `Invalid user group ID: ${anonymousId!.id}`);
    const retired = await createGroup(client, "Retired sub");
    expectSuccess(await client.post(`/user_groups/${retired}/deactivate`));
    expectError(await create([retired]), 400, "User group is deactivated.");
    // Nothing was created; the same request without bad subgroups succeeds.
    expect(await namesOf()).not.to.include("Orphan");
    expectSuccess(await create([]));
  });

  it("GET /user_groups includes deactivated groups only with include_deactivated_groups", async function () {
    const client = u.othello!.client;
    const id = await createGroup(client, "Soon gone");
    expectSuccess(await client.post(`/user_groups/${id}/deactivate`));
    const list = async (params = {}) =>
      (expectSuccess(await client.get("/user_groups", params)).user_groups as Array<{ id: number }>).map(
        (g) => g.id,
      );
    expect(await list()).not.to.include(id);
    expect(await list({ include_deactivated_groups: false })).not.to.include(id);
    expect(await list({ include_deactivated_groups: true })).to.include(id);
    expect((await groupRecord(client, id)).deactivated).to.equal(true);
  });
});

describe("user groups: can_create_groups", function () {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  it("defaults to role:members: any member may create a group", async function () {
    const realm = await server.factory.realm();
    expectSuccess(
      await realm.users.cordelia!.client.post("/user_groups/create", {
        name: "M",
        description: "",
        members: [],
      }),
    );
  });

  it("follows the realm setting, through nested groups; others are refused and nothing is created", async function () {
    const realm = await server.factory.realm();
    const { desdemona, iago, hamlet, cordelia } = realm.users;
    const create = (user: TestUser, name: string) =>
      user.client.post("/user_groups/create", { name, description: "", members: [] });

    await setRealmGroupSetting(
      server,
      realm.id,
      "can_create_groups",
      await systemGroupId(server, realm.id, "role:administrators"),
    );
    expectError(await create(hamlet!, "By hamlet"), 400, "Insufficient permission");
    expectSuccess(await create(iago!, "By iago"));

    // A user-defined group whose subgroup holds cordelia.
    const inner = await createGroup(desdemona!.client, "Creators inner", { members: [cordelia!.id] });
    const outer = await createGroup(desdemona!.client, "Creators", { subgroups: [inner] });
    await setRealmGroupSetting(server, realm.id, "can_create_groups", outer);
    expectSuccess(await create(cordelia!, "By cordelia"));
    expectError(await create(iago!, "By iago again"), 400, "Insufficient permission");
    const names = [...(await groupsById(desdemona!.client)).values()].map((g) => g.name as string);
    expect(names).to.include.members(["By iago", "By cordelia"]);
    expect(names).not.to.include.members(["By hamlet"]);
    expect(names).not.to.include("By iago again");
  });
});

describe("user groups: reading membership", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Record<string, TestUser>;
  let groups: { outer: number; middle: number; inner: number };

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = realm.users;
    // outer ⊃ middle ⊃ inner; othello directly in outer, cordelia in middle, hamlet in inner.
    const client = u.desdemona!.client;
    const inner = await createGroup(client, "Inner", { members: [u.hamlet!.id] });
    const middle = await createGroup(client, "Middle", { members: [u.cordelia!.id], subgroups: [inner] });
    const outer = await createGroup(client, "Outer", { members: [u.othello!.id], subgroups: [middle] });
    groups = { outer, middle, inner };
  });
  after(async function () {
    await server.close();
  });

  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

  it("GET members: direct members, or everyone through nested subgroups", async function () {
    const client = u.hamlet!.client;
    const members = async (id: number, params = {}) =>
      expectSuccess(await client.get(`/user_groups/${id}/members`, params)).members as number[];
    expect(await members(groups.outer, { direct_member_only: true })).to.deep.equal([u.othello!.id]);
    expect(await members(groups.outer)).to.deep.equal(sorted([u.othello!.id, u.cordelia!.id, u.hamlet!.id]));
    expect(await members(groups.middle)).to.deep.equal(sorted([u.cordelia!.id, u.hamlet!.id]));
    expect(await members(groups.inner, { direct_member_only: false })).to.deep.equal([u.hamlet!.id]);
  });

  it("GET members/{user_id}: direct or recursive membership", async function () {
    const client = u.othello!.client;
    const isMember = async (groupId: number, userId: number, params = {}) =>
      expectSuccess(await client.get(`/user_groups/${groupId}/members/${userId}`, params))
        .is_user_group_member as boolean;
    expect(await isMember(groups.outer, u.hamlet!.id)).to.equal(true);
    expect(await isMember(groups.outer, u.hamlet!.id, { direct_member_only: true })).to.equal(false);
    expect(await isMember(groups.inner, u.hamlet!.id, { direct_member_only: true })).to.equal(true);
    expect(await isMember(groups.inner, u.othello!.id)).to.equal(false);
  });

  it("GET subgroups: direct, or at any depth", async function () {
    const client = u.cordelia!.client;
    const subgroups = async (id: number, params = {}) =>
      expectSuccess(await client.get(`/user_groups/${id}/subgroups`, params)).subgroups as number[];
    expect(await subgroups(groups.outer)).to.deep.equal(sorted([groups.middle, groups.inner]));
    expect(await subgroups(groups.outer, { direct_subgroup_only: true })).to.deep.equal([groups.middle]);
    expect(await subgroups(groups.inner)).to.deep.equal([]);
  });

  it("reads system groups recursively: administrators include owners", async function () {
    const admins = await systemGroupId(server, realm.id, "role:administrators");
    const body = expectSuccess(await u.hamlet!.client.get(`/user_groups/${admins}/members`));
    expect(body.members).to.deep.equal(sorted([u.desdemona!.id, u.iago!.id]));
  });

  it("leaves deactivated users out of member lists", async function () {
    const client = u.desdemona!.client;
    const ghost = await server.factory.user(realm.id, "ghost-reader");
    const id = await createGroup(client, "Haunted", { members: [ghost.id, u.hamlet!.id] });
    const outer = await createGroup(client, "Haunted outer", { subgroups: [id] });
    await server.app.knex("users").where({ id: ghost.id }).update({ is_active: false });
    server.app.realms.invalidate(realm.id);
    expect(expectSuccess(await client.get(`/user_groups/${id}/members`)).members).to.deep.equal([
      u.hamlet!.id,
    ]);
    expect(expectSuccess(await client.get(`/user_groups/${outer}/members`)).members).to.deep.equal([
      u.hamlet!.id,
    ]);
    expect((await groupRecord(client, id)).members).to.deep.equal([u.hamlet!.id]);
    expectError(await client.get(`/user_groups/${id}/members/${ghost.id}`), 400, "User is deactivated");
  });

  it("refuses unknown and anonymous groups, deactivated groups, unknown users and bots", async function () {
    const client = u.hamlet!.client;
    const anonymous = await server.app
      .knex("user_groups")
      .where({ realm_id: realm.id })
      .whereNull("name")
      .first<{ id: number }>("id");
    for (const id of [99999, anonymous.id]) {
      expectError(await client.get(`/user_groups/${id}/members`), 400, "Invalid user group");
      expectError(await client.get(`/user_groups/${id}/subgroups`), 400, "Invalid user group");
      expectError(await client.get(`/user_groups/${id}/members/${u.hamlet!.id}`), 400, "Invalid user group");
    }
    const retired = await createGroup(client, "Retired reading");
    expectSuccess(await client.post(`/user_groups/${retired}/deactivate`));
    expectError(await client.get(`/user_groups/${retired}/members`), 400, "User group is deactivated.");
    expectError(await client.get(`/user_groups/${retired}/subgroups`), 400, "User group is deactivated.");
    expectError(await client.get(`/user_groups/${groups.outer}/members/99999`), 400, "No such user");
    const bot = await server.factory.user(realm.id, "reynaldo-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u.hamlet!.id,
    });
    // Zulip's access_user_by_id refuses bots here.
    expectError(await client.get(`/user_groups/${groups.outer}/members/${bot.id}`), 400, "No such user");
  });

  it("refuses guests and bots", async function () {
    const bot = await server.factory.user(realm.id, "guildenstern-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u.hamlet!.id,
    });
    for (const path of [
      `/user_groups/${groups.outer}/members`,
      `/user_groups/${groups.outer}/members/${u.hamlet!.id}`,
      `/user_groups/${groups.outer}/subgroups`,
    ]) {
      expectError(await u.polonius!.client.get(path), 400, "Not allowed for guest users");
      expectError(await bot.client.get(path), 400, "This endpoint does not accept bot requests.");
    }
  });
});
