import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import { type Params, expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createGroup, groupRecord, setRealmGroupSetting, systemGroupId } from "../helpers/user-groups.js";

describe("user groups: POST /user_groups/{id}/members and /subgroups", function () {
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

  const members = async (id: number) => (await groupRecord(u.desdemona!.client, id)).members as number[];
  const subgroups = async (id: number) =>
    (await groupRecord(u.desdemona!.client, id)).direct_subgroup_ids as number[];
  const post = (user: TestUser, id: number, params: Params) =>
    user.client.post(`/user_groups/${id}/members`, params);
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
  const only = (user: TestUser) => ({ direct_members: [user.id], direct_subgroups: [] });

  it("needs something to do", async function () {
    const id = await createGroup(u.hamlet!.client, "Idle");
    expectError(
      await post(u.hamlet!, id, {}),
      400,
      'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
    );
    expectError(
      await post(u.hamlet!, id, { add: [], delete: [] }),
      400,
      'Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".',
    );
    expectError(
      await u.hamlet!.client.post(`/user_groups/${id}/subgroups`, {}),
      400,
      'Nothing to do. Specify at least one of "add" or "delete".',
    );
  });

  describe("add", function () {
    it("is allowed to can_add_members_group and refused to others, changing nothing", async function () {
      const { hamlet, othello, cordelia } = u;
      const id = await createGroup(hamlet!.client, "Adders", {
        can_add_members_group: { direct_members: [othello!.id], direct_subgroups: [] },
        can_manage_group: only(hamlet!),
      });
      expectError(
        await post(cordelia!, id, { add: [cordelia!.id, othello!.id] }),
        400,
        "Insufficient permission",
      );
      expect(await members(id)).to.deep.equal([]);
      expectSuccess(await post(othello!, id, { add: [cordelia!.id] }));
      expect(await members(id)).to.deep.equal([cordelia!.id]);
    });

    it("lets a user join through can_join_group, but not add others with it", async function () {
      const { hamlet, othello, cordelia } = u;
      const id = await createGroup(hamlet!.client, "Joinable", {
        can_join_group: await sys("role:members"),
      });
      expectSuccess(await post(cordelia!, id, { add: [cordelia!.id] }));
      expectError(await post(cordelia!, id, { add: [othello!.id] }), 400, "Insufficient permission");
      expect(await members(id)).to.deep.equal([cordelia!.id]);
    });

    it("refuses joining by default (can_join_group is role:nobody)", async function () {
      const id = await createGroup(u.hamlet!.client, "Closed");
      expectError(await post(u.othello!, id, { add: [u.othello!.id] }), 400, "Insufficient permission");
      expect(await members(id)).to.deep.equal([]);
    });

    it("lets can_add_members_group members join too", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Self adders", {
        can_add_members_group: only(othello!),
        can_join_group: await sys("role:nobody"),
      });
      expectSuccess(await post(othello!, id, { add: [othello!.id] }));
      expect(await members(id)).to.deep.equal([othello!.id]);
    });

    it("lets can_manage_group alone add, and the owner through can_manage_all_groups; not an admin", async function () {
      const { hamlet, othello, cordelia, iago, desdemona } = u;
      const nobody = await sys("role:nobody");
      const id = await createGroup(hamlet!.client, "Managed adds", {
        can_add_members_group: nobody,
        can_manage_group: only(othello!),
      });
      expectSuccess(await post(othello!, id, { add: [cordelia!.id] }));
      expectError(await post(iago!, id, { add: [iago!.id] }), 400, "Insufficient permission");
      expectSuccess(await post(desdemona!, id, { add: [hamlet!.id] }));
      expect(await members(id)).to.deep.equal(sorted([cordelia!.id, hamlet!.id]));
    });

    it("counts can_add_members_group membership through nested subgroups", async function () {
      const { hamlet, othello, cordelia } = u;
      const inner = await createGroup(hamlet!.client, "Adders inner", { members: [cordelia!.id] });
      const outer = await createGroup(hamlet!.client, "Adders outer", { subgroups: [inner] });
      const id = await createGroup(hamlet!.client, "Nested adds", { can_add_members_group: outer });
      expectSuccess(await post(cordelia!, id, { add: [othello!.id] }));
      expect(await members(id)).to.deep.equal([othello!.id]);
    });

    it("refuses unknown, deactivated and already-member users; accepts bots", async function () {
      const client = u.hamlet!;
      const id = await createGroup(client.client, "Strict adds", { members: [u.othello!.id] });
      expectError(await post(client, id, { add: [99999] }), 400, "Invalid user ID: 99999");
      const ghost = await server.factory.user(realm.id, "ghost-member");
      await server.app.knex("users").where({ id: ghost.id }).update({ is_active: false });
      server.app.realms.invalidate(realm.id);
      expectError(await post(client, id, { add: [ghost.id] }), 400, `Invalid user ID: ${ghost.id}`);
      expectError(
        await post(client, id, { add: [u.cordelia!.id, u.othello!.id] }),
        400,
        `User ${u.othello!.id} is already a member of this group`,
      );
      expect(await members(id)).to.deep.equal([u.othello!.id]);
      const bot = await server.factory.user(realm.id, "marcellus-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: u.hamlet!.id,
      });
      expectSuccess(await post(client, id, { add: [bot.id, bot.id] }));
      expect(await members(id)).to.deep.equal(sorted([u.othello!.id, bot.id]));
    });

    it("refuses guests; accepts bots as callers (feature level 496)", async function () {
      const { hamlet, polonius } = u;
      const bot = await server.factory.user(realm.id, "bernardo-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: hamlet!.id,
      });
      const id = await createGroup(hamlet!.client, "Bot adds", {
        can_add_members_group: { direct_members: [bot.id, polonius!.id], direct_subgroups: [] },
      });
      expectError(await post(polonius!, id, { add: [hamlet!.id] }), 400, "Not allowed for guest users");
      expectSuccess(await post(bot, id, { add: [hamlet!.id] }));
      expect(await members(id)).to.deep.equal([hamlet!.id]);
    });
  });

  describe("delete", function () {
    it("lets anyone leave by default (can_leave_group is role:everyone)", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Leavable", { members: [othello!.id, hamlet!.id] });
      expectSuccess(await post(othello!, id, { delete: [othello!.id] }));
      expect(await members(id)).to.deep.equal([hamlet!.id]);
    });

    it("refuses leaving when can_leave_group excludes the user, unless they may remove anyone", async function () {
      const { hamlet, othello, cordelia } = u;
      const id = await createGroup(hamlet!.client, "Sticky", {
        members: [othello!.id, cordelia!.id],
        can_leave_group: await sys("role:nobody"),
        can_remove_members_group: only(cordelia!),
      });
      expectError(await post(othello!, id, { delete: [othello!.id] }), 400, "Insufficient permission");
      expect(await members(id)).to.deep.equal(sorted([othello!.id, cordelia!.id]));
      expectSuccess(await post(cordelia!, id, { delete: [cordelia!.id] }));
      expect(await members(id)).to.deep.equal([othello!.id]);
    });

    it("removes others only for can_remove_members_group (or managers)", async function () {
      const { hamlet, othello, cordelia, prospero } = u;
      const id = await createGroup(hamlet!.client, "Removals", {
        members: [othello!.id, cordelia!.id, prospero!.id],
        can_remove_members_group: only(cordelia!),
      });
      // Default can_remove_members_group is nobody; othello is neither remover nor manager.
      expectError(await post(othello!, id, { delete: [prospero!.id] }), 400, "Insufficient permission");
      expect(await members(id)).to.deep.equal(sorted([othello!.id, cordelia!.id, prospero!.id]));
      expectSuccess(await post(cordelia!, id, { delete: [prospero!.id] }));
      // hamlet manages the group (the creator by default).
      expectSuccess(await post(hamlet!, id, { delete: [othello!.id] }));
      expect(await members(id)).to.deep.equal([cordelia!.id]);
    });

    it("checks the users before the permission, then that each is a member", async function () {
      const { hamlet, othello, cordelia } = u;
      const id = await createGroup(hamlet!.client, "Checked removals", { members: [othello!.id] });
      // cordelia may not remove others, but the unknown user is reported first.
      expectError(await post(cordelia!, id, { delete: [99999] }), 400, "Invalid user ID: 99999");
      expectError(await post(cordelia!, id, { delete: [othello!.id] }), 400, "Insufficient permission");
      expectError(
        await post(hamlet!, id, { delete: [othello!.id, cordelia!.id] }),
        400,
        `There is no member '${cordelia!.id}' in this user group`,
      );
      expect(await members(id)).to.deep.equal([othello!.id]);
    });
  });

  describe("subgroups", function () {
    it("adds subgroups for can_add_members_group, not only for managers; refuses others", async function () {
      const { hamlet, othello, cordelia } = u;
      const a = await createGroup(hamlet!.client, "SG a");
      const id = await createGroup(hamlet!.client, "SG parent", { can_add_members_group: only(othello!) });
      expectError(await post(cordelia!, id, { add_subgroups: [a] }), 400, "Insufficient permission");
      expect(await subgroups(id)).to.deep.equal([]);
      expectSuccess(await post(othello!, id, { add_subgroups: [a] }));
      expect(await subgroups(id)).to.deep.equal([a]);
    });

    it("removes subgroups only for can_manage_group, not for can_add_members_group", async function () {
      const { hamlet, othello } = u;
      const a = await createGroup(hamlet!.client, "SG rm a");
      const id = await createGroup(hamlet!.client, "SG rm parent", {
        subgroups: [a],
        can_add_members_group: only(othello!),
      });
      expectError(await post(othello!, id, { delete_subgroups: [a] }), 400, "Insufficient permission");
      expect(await subgroups(id)).to.deep.equal([a]);
      expectSuccess(await post(hamlet!, id, { delete_subgroups: [a] }));
      expect(await subgroups(id)).to.deep.equal([]);
    });

    it("refuses unknown, anonymous and deactivated subgroups, and duplicates", async function () {
      const client = u.hamlet!;
      const a = await createGroup(client.client, "SG dup a");
      const id = await createGroup(client.client, "SG dup parent", { subgroups: [a] });
      expectError(await post(client, id, { add_subgroups: [99999] }), 400, "Invalid user group ID: 99999");
      const anonymous = await server.app
        .knex("user_groups")
        .where({ realm_id: realm.id })
        .whereNull("name")
        .first<{ id: number }>("id");
      expectError(
        await post(client, id, { add_subgroups: [anonymous.id] }),
        400,
        `Invalid user group ID: ${anonymous.id}`,
      );
      const retired = await createGroup(client.client, "SG retired");
      expectSuccess(await client.client.post(`/user_groups/${retired}/deactivate`));
      expectError(await post(client, id, { add_subgroups: [retired] }), 400, "User group is deactivated.");
      expectError(
        await post(client, id, { add_subgroups: [a] }),
        400,
        `User group ${a} is already a subgroup of this group.`,
      );
      expectError(await post(client, id, { delete_subgroups: [retired] }), 400, "User group is deactivated.");
      const b = await createGroup(client.client, "SG dup b");
      expectError(
        await post(client, id, { delete_subgroups: [b] }),
        400,
        `User group ${b} is not a subgroup of this group.`,
      );
      expect(await subgroups(id)).to.deep.equal([a]);
    });

    it("refuses cycles, through any depth, and the group itself", async function () {
      const client = u.hamlet!;
      // top ⊃ mid ⊃ low
      const low = await createGroup(client.client, "Cycle low");
      const mid = await createGroup(client.client, "Cycle mid", { subgroups: [low] });
      const top = await createGroup(client.client, "Cycle top", { subgroups: [mid] });
      expectError(
        await post(client, low, { add_subgroups: [top] }),
        400,
        `User group ${low} is already a subgroup of one of the passed subgroups.`,
      );
      expectError(
        await post(client, mid, { add_subgroups: [top] }),
        400,
        `User group ${mid} is already a subgroup of one of the passed subgroups.`,
      );
      expectError(
        await post(client, top, { add_subgroups: [top] }),
        400,
        `User group ${top} is already a subgroup of one of the passed subgroups.`,
      );
      expect(await subgroups(low)).to.deep.equal([]);
      expect(await subgroups(top)).to.deep.equal([mid]);
      // A diamond is not a cycle.
      expectSuccess(await post(client, top, { add_subgroups: [low] }));
      expect(await subgroups(top)).to.deep.equal(sorted([mid, low]));
    });

    it("allows system groups as subgroups, and the /subgroups endpoint does the same", async function () {
      const client = u.hamlet!;
      const admins = await sys("role:administrators");
      const id = await createGroup(client.client, "With admins");
      expectSuccess(await client.client.post(`/user_groups/${id}/subgroups`, { add: [admins] }));
      expect(await subgroups(id)).to.deep.equal([admins]);
      const recursive = expectSuccess(await client.client.get(`/user_groups/${id}/members`)).members;
      expect(recursive).to.deep.equal(sorted([u.desdemona!.id, u.iago!.id]));
      expectError(
        await client.client.post(`/user_groups/${id}/subgroups`, { add: [admins] }),
        400,
        `User group ${admins} is already a subgroup of this group.`,
      );
      expectSuccess(await client.client.post(`/user_groups/${id}/subgroups`, { delete: [admins] }));
      expect(await subgroups(id)).to.deep.equal([]);
    });

    it("gives nested membership its effect on permissions at once", async function () {
      const { hamlet, cordelia } = u;
      const helpers = await createGroup(hamlet!.client, "Helpers pool");
      const id = await createGroup(hamlet!.client, "Helped", {
        can_manage_group: { direct_members: [hamlet!.id], direct_subgroups: [helpers] },
      });
      expectError(
        await cordelia!.client.patch(`/user_groups/${id}`, { name: "x" }),
        400,
        "Insufficient permission",
      );
      const team = await createGroup(hamlet!.client, "Cordelia team", { members: [cordelia!.id] });
      expectSuccess(await post(hamlet!, helpers, { add_subgroups: [team] }));
      expectSuccess(await cordelia!.client.patch(`/user_groups/${id}`, { name: "Helped by cordelia" }));
    });
  });

  it("never touches system groups, whoever asks", async function () {
    const members = await sys("role:members");
    const before = await groupRecord(u.desdemona!.client, members);
    for (const params of [
      { add: [u.polonius!.id] },
      { delete: [u.hamlet!.id] },
      { add_subgroups: [await createGroup(u.hamlet!.client, "Sneaky")] },
    ]) {
      expectError(await post(u.desdemona!, members, params), 400, "Insufficient permission");
    }
    expectError(await post(u.hamlet!, members, { delete: [u.hamlet!.id] }), 400, "Insufficient permission");
    expect(await groupRecord(u.desdemona!.client, members)).to.deep.equal(before);
  });

  it("runs add, delete, add_subgroups, delete_subgroups in order, all or nothing", async function () {
    const { hamlet, othello, cordelia } = u;
    const a = await createGroup(hamlet!.client, "Order a");
    const id = await createGroup(hamlet!.client, "Ordered", { members: [othello!.id] });
    // add succeeds, then delete fails: the add is undone.
    expectError(
      await post(hamlet!, id, { add: [cordelia!.id], delete: [hamlet!.id] }),
      400,
      `There is no member '${hamlet!.id}' in this user group`,
    );
    expect(await members(id)).to.deep.equal([othello!.id]);
    // delete sees the add of the same request.
    expectSuccess(await post(hamlet!, id, { add: [cordelia!.id], delete: [cordelia!.id, othello!.id] }));
    expect(await members(id)).to.deep.equal([]);
    expectError(
      await post(hamlet!, id, { add: [cordelia!.id], add_subgroups: [a], delete_subgroups: [99999] }),
      400,
      "Invalid user group ID: 99999",
    );
    expect(await members(id)).to.deep.equal([]);
    expect(await subgroups(id)).to.deep.equal([]);
  });

  it("edits members and subgroups of a deactivated group (feature level 391)", async function () {
    const { hamlet, othello } = u;
    const a = await createGroup(hamlet!.client, "Retired sub a");
    const id = await createGroup(hamlet!.client, "Retired editable", { members: [hamlet!.id] });
    expectSuccess(await hamlet!.client.post(`/user_groups/${id}/deactivate`));
    expectSuccess(await post(hamlet!, id, { add: [othello!.id], delete: [hamlet!.id], add_subgroups: [a] }));
    const group = await groupRecord(hamlet!.client, id);
    expect(group).to.deep.include({ members: [othello!.id], direct_subgroup_ids: [a], deactivated: true });
  });

  it("lets can_manage_all_groups, even set to a user group, do everything", async function () {
    const fresh = await server.factory.realm();
    const { hamlet, othello, iago } = fresh.users;
    const id = await createGroup(hamlet!.client, "Locked", {
      can_manage_group: only(hamlet!),
      can_add_members_group: only(hamlet!),
    });
    expectError(await post(iago!, id, { add: [othello!.id] }), 400, "Insufficient permission");
    const admins = await createGroup(hamlet!.client, "All-managers", { members: [iago!.id] });
    await setRealmGroupSetting(server, fresh.id, "can_manage_all_groups", admins);
    expectSuccess(await post(iago!, id, { add: [othello!.id] }));
    expectSuccess(await post(iago!, id, { delete: [othello!.id] }));
    expect((await groupRecord(hamlet!.client, id)).members).to.deep.equal([]);
  });
});
