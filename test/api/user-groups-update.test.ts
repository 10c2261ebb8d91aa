import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createGroup, groupRecord, setRealmGroupSetting, systemGroupId } from "../helpers/user-groups.js";

const SETTINGS = [
  "can_add_members_group",
  "can_join_group",
  "can_leave_group",
  "can_manage_group",
  "can_mention_group",
  "can_remove_members_group",
] as const;

describe("user groups: PATCH /user_groups/{id}", function () {
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

  it("renames and redescribes a group for its manager", async function () {
    const client = u.hamlet!.client;
    const id = await createGroup(client, "Sentries");
    expectSuccess(await client.patch(`/user_groups/${id}`, { name: "Night watch", description: "Elsinore" }));
    expect(await groupRecord(client, id)).to.include({ name: "Night watch", description: "Elsinore" });
  });

  it("answers an empty request with 'No new data supplied', before looking the group up", async function () {
    expectError(await u.hamlet!.client.patch("/user_groups/99999", {}), 400, "No new data supplied");
  });

  it("refuses unknown and anonymous groups", async function () {
    const client = u.desdemona!.client;
    expectError(await client.patch("/user_groups/99999", { name: "x" }), 400, "Invalid user group");
    const anonymous = await server.app
      .knex("user_groups")
      .where({ realm_id: realm.id })
      .whereNull("name")
      .first<{ id: number }>("id");
    expect(anonymous).to.not.equal(undefined);
    expectError(await client.patch(`/user_groups/${anonymous.id}`, { name: "x" }), 400, "Invalid user group");
  });

  it("refuses a group of another realm as unknown", async function () {
    const other = await server.factory.realm({ yorick: ROLE.OWNER }, "Other");
    const id = await createGroup(other.users.yorick!.client, "Foreign");
    expectError(
      await u.desdemona!.client.patch(`/user_groups/${id}`, { name: "Mine" }),
      400,
      "Invalid user group",
    );
    expect((await groupRecord(other.users.yorick!.client, id)).name).to.equal("Foreign");
  });

  it("never changes system groups, not even for owners", async function () {
    const client = u.desdemona!.client;
    const members = await sys("role:members");
    const before = await groupRecord(client, members);
    expectError(
      await client.patch(`/user_groups/${members}`, { name: "Everybody" }),
      400,
      "Insufficient permission",
    );
    expectError(
      await client.patch(`/user_groups/${members}`, {
        can_mention_group: { new: await sys("role:nobody") },
      }),
      400,
      "Insufficient permission",
    );
    expect(await groupRecord(client, members)).to.deep.equal(before);
  });

  it("needs can_manage_group or can_manage_all_groups; administrators get no bypass", async function () {
    const { hamlet, othello, iago, desdemona } = u;
    const id = await createGroup(hamlet!.client, "Players");
    const before = await groupRecord(hamlet!.client, id);
    // othello is a plain member; iago an administrator outside can_manage_all_groups (owners).
    for (const user of [othello!, iago!]) {
      expectError(
        await user.client.patch(`/user_groups/${id}`, { name: "Stolen" }),
        400,
        "Insufficient permission",
      );
    }
    expect(await groupRecord(hamlet!.client, id)).to.deep.equal(before);
    // desdemona, an owner, is in can_manage_all_groups by default.
    expectSuccess(await desdemona!.client.patch(`/user_groups/${id}`, { description: "by the owner" }));
    expect((await groupRecord(hamlet!.client, id)).description).to.equal("by the owner");
  });

  it("counts can_manage_group membership through nested subgroups", async function () {
    const { hamlet, cordelia, othello } = u;
    const inner = await createGroup(hamlet!.client, "Managers inner", { members: [cordelia!.id] });
    const outer = await createGroup(hamlet!.client, "Managers", { subgroups: [inner] });
    const id = await createGroup(hamlet!.client, "Managed", { can_manage_group: outer });
    expectSuccess(await cordelia!.client.patch(`/user_groups/${id}`, { name: "Managed by cordelia" }));
    expectError(
      await othello!.client.patch(`/user_groups/${id}`, { name: "nope" }),
      400,
      "Insufficient permission",
    );
    // An anonymous set naming the nested group works the same way.
    const anon = await createGroup(hamlet!.client, "Managed anon", {
      can_manage_group: { direct_members: [othello!.id], direct_subgroups: [outer] },
    });
    expectSuccess(await cordelia!.client.patch(`/user_groups/${anon}`, { description: "cordelia" }));
    expectSuccess(await othello!.client.patch(`/user_groups/${anon}`, { description: "othello" }));
    expectError(
      await hamlet!.client.patch(`/user_groups/${anon}`, { description: "x" }),
      400,
      "Insufficient permission",
    );
  });

  it("follows can_manage_all_groups when it changes", async function () {
    const fresh = await server.factory.realm();
    const { hamlet, iago } = fresh.users;
    const id = await createGroup(hamlet!.client, "Council");
    expectError(
      await iago!.client.patch(`/user_groups/${id}`, { name: "Iago's" }),
      400,
      "Insufficient permission",
    );
    await setRealmGroupSetting(
      server,
      fresh.id,
      "can_manage_all_groups",
      await systemGroupId(server, fresh.id, "role:administrators"),
    );
    expectSuccess(await iago!.client.patch(`/user_groups/${id}`, { name: "Iago's" }));
    expect((await groupRecord(hamlet!.client, id)).name).to.equal("Iago's");
  });

  it("refuses guests; accepts bots (feature level 496) with the same permission rules", async function () {
    const { hamlet, polonius } = u;
    const bot = await server.factory.user(realm.id, "rosencrantz-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: hamlet!.id,
    });
    const id = await createGroup(hamlet!.client, "Bot managed", {
      can_manage_group: { direct_members: [hamlet!.id, polonius!.id], direct_subgroups: [] },
    });
    expectError(
      await polonius!.client.patch(`/user_groups/${id}`, { name: "x" }),
      400,
      "Not allowed for guest users",
    );
    expectError(await bot.client.patch(`/user_groups/${id}`, { name: "x" }), 400, "Insufficient permission");
    expectSuccess(
      await hamlet!.client.patch(`/user_groups/${id}`, {
        can_manage_group: { new: { direct_members: [hamlet!.id, bot.id], direct_subgroups: [] } },
      }),
    );
    expectSuccess(await bot.client.patch(`/user_groups/${id}`, { name: "Renamed by a bot" }));
    expect((await groupRecord(hamlet!.client, id)).name).to.equal("Renamed by a bot");
  });

  it("checks a new name like creation does, and unchanged values are no-ops", async function () {
    const client = u.hamlet!.client;
    const id = await createGroup(client, "Gravediggers two");
    await createGroup(client, "Taken");
    expectError(
      await client.patch(`/user_groups/${id}`, { name: " " }),
      400,
      "User group name can't be empty!",
    );
    expectError(
      await client.patch(`/user_groups/${id}`, { name: "role:diggers" }),
      400,
      "User group name cannot start with 'role:'.",
    );
    expectError(
      await client.patch(`/user_groups/${id}`, { name: "Taken" }),
      400,
      "User group 'Taken' already exists.",
    );
    expectSuccess(await client.patch(`/user_groups/${id}`, { name: "Gravediggers two" }));
    expect((await groupRecord(client, id)).name).to.equal("Gravediggers two");
  });

  it("takes settings only as {new, old}: a plain value is refused for every setting", async function () {
    const client = u.hamlet!.client;
    const id = await createGroup(client, "Strict");
    const before = await groupRecord(client, id);
    const members = await sys("role:members");
    for (const setting of SETTINGS) {
      expectError(
        await client.patch(`/user_groups/${id}`, { [setting]: members }),
        400,
        `${setting} does not have the expected format`,
      );
      expectError(
        await client.patch(`/user_groups/${id}`, { [setting]: { old: members } }),
        400,
        `${setting} does not have the expected format`,
      );
    }
    expect(await groupRecord(client, id)).to.deep.equal(before);
  });

  it("changes each setting, to a group or an explicit set, checking 'old'", async function () {
    const { hamlet, othello } = u;
    // The owner (can_manage_all_groups): changing can_manage_group does not lock her out.
    const client = u.desdemona!.client;
    const id = await createGroup(hamlet!.client, "Settable");
    const moderators = await sys("role:moderators");
    for (const setting of SETTINGS) {
      const current = (await groupRecord(client, id))[setting];
      expectError(
        await client.patch(`/user_groups/${id}`, { [setting]: { new: moderators, old: 424242 } }),
        400,
        "'old' value does not match the expected value.",
        "EXPECTATION_MISMATCH",
      );
      expectSuccess(
        await client.patch(`/user_groups/${id}`, { [setting]: { new: moderators, old: current } }),
      );
      expect((await groupRecord(client, id))[setting], setting).to.equal(moderators);
    }
    // An explicit set; 'old' compares as sets, in any order.
    const set = { direct_members: [othello!.id, hamlet!.id], direct_subgroups: [moderators] };
    expectSuccess(await client.patch(`/user_groups/${id}`, { can_join_group: { new: set } }));
    const sorted = { ...set, direct_members: [...set.direct_members].sort((a, b) => a - b) };
    expect((await groupRecord(client, id)).can_join_group).to.deep.equal(sorted);
    expectSuccess(
      await client.patch(`/user_groups/${id}`, {
        can_join_group: {
          new: moderators,
          old: { ...set, direct_members: [...sorted.direct_members].reverse() },
        },
      }),
    );
    expect((await groupRecord(client, id)).can_join_group).to.equal(moderators);
  });

  it("drops the old anonymous group when a setting moves to a named group", async function () {
    const client = u.hamlet!.client;
    const anonymousCount = async () =>
      Number(
        (
          await server.app
            .knex("user_groups")
            .where({ realm_id: realm.id })
            .whereNull("name")
            .count<Array<{ n: number }>>("id as n")
        )[0]!.n,
      );
    const id = await createGroup(client, "Anon owner");
    const before = await anonymousCount();
    expectSuccess(
      await client.patch(`/user_groups/${id}`, { can_manage_group: { new: await sys("role:members") } }),
    );
    expect(await anonymousCount()).to.equal(before - 1);
  });

  it("refuses role:internet and role:everyone for can_manage_group; role:internet and role:owners for can_mention_group", async function () {
    const client = u.hamlet!.client;
    const id = await createGroup(client, "Guarded");
    const before = await groupRecord(client, id);
    const expectRefused = async (setting: string, group: "role:internet" | "role:everyone" | "role:owners") =>
      expectError(
        await client.patch(`/user_groups/${id}`, { [setting]: { new: await sys(group) } }),
        400,
        `'${setting}' setting cannot be set to '${group}' group.`,
      );
    await expectRefused("can_manage_group", "role:internet");
    await expectRefused("can_manage_group", "role:everyone");
    await expectRefused("can_mention_group", "role:internet");
    await expectRefused("can_mention_group", "role:owners");
    expect(await groupRecord(client, id)).to.deep.equal(before);
    // What they may be.
    expectSuccess(
      await client.patch(`/user_groups/${id}`, { can_mention_group: { new: await sys("role:everyone") } }),
    );
    expectSuccess(
      await client.patch(`/user_groups/${id}`, { can_manage_group: { new: await sys("role:owners") } }),
    );
  });

  it("applies several changes in one request, or none if one fails", async function () {
    const client = u.desdemona!.client;
    const id = await createGroup(client, "Atomic");
    const before = await groupRecord(client, id);
    expectError(
      await client.patch(`/user_groups/${id}`, {
        name: "Atomic renamed",
        description: "new",
        can_join_group: { new: await sys("role:members") },
        can_mention_group: { new: await sys("role:internet") },
      }),
      400,
      "'can_mention_group' setting cannot be set to 'role:internet' group.",
    );
    expect(await groupRecord(client, id)).to.deep.equal(before);
    expectSuccess(
      await client.patch(`/user_groups/${id}`, {
        name: "Atomic renamed",
        description: "new",
        can_join_group: { new: await sys("role:members") },
      }),
    );
    expect(await groupRecord(client, id)).to.include({
      name: "Atomic renamed",
      description: "new",
      can_join_group: await sys("role:members"),
    });
  });
});
