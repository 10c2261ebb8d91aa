import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import { type Params, expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createGroup, groupRecord, systemGroupId } from "../helpers/user-groups.js";

/** Register parameters of a client that knows deactivated groups, and of one that does not. */
const CAPABLE: Params = {
  event_types: ["user_group"],
  fetch_event_types: ["realm_user_groups"],
  client_capabilities: { include_deactivated_groups: true },
};
const LEGACY: Params = { event_types: ["user_group"], fetch_event_types: ["realm_user_groups"] };

/** Events without their queue IDs. */
const shapes = (events: Array<Record<string, unknown>>) => events.map(({ id: _id, ...event }) => event);

describe("user groups: register state and events", function () {
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

  it("register: realm_user_groups lists named groups; deactivated ones only with the capability", async function () {
    const client = u.othello!.client;
    const active = await createGroup(client, "Listed");
    const retired = await createGroup(client, "Unlisted");
    expectSuccess(await client.post(`/user_groups/${retired}/deactivate`));
    const legacy = (await register(client, LEGACY)).realm_user_groups as Array<{ id: number }>;
    const capable = (await register(client, CAPABLE)).realm_user_groups as Array<{ id: number }>;
    expect(legacy.map((g) => g.id))
      .to.include(active)
      .and.not.include(retired);
    expect(capable.map((g) => g.id)).to.include.members([active, retired]);
    // Same records as GET /user_groups.
    expect(capable.find((g) => g.id === retired)).to.deep.equal(await groupRecord(client, retired));
    const listed = expectSuccess(await client.get("/user_groups")).user_groups;
    expect(legacy).to.deep.equal(listed);
    // Not fetched unless asked for.
    expect(await register(client, { fetch_event_types: ["realm"] })).not.to.have.property(
      "realm_user_groups",
    );
  });

  it("add: a created group, then add_subgroups for its initial subgroups", async function () {
    const { hamlet, othello } = u;
    const sub = await createGroup(hamlet!.client, "Initial sub");
    let id = 0;
    const events = await verifyRegisterParity(othello!.client, LEGACY, async () => {
      id = await createGroup(hamlet!.client, "Created with events", {
        members: [othello!.id, hamlet!.id],
        subgroups: [sub],
        can_join_group: { direct_members: [othello!.id], direct_subgroups: [sub] },
      });
    });
    const group = { ...(await groupRecord(hamlet!.client, id)), direct_subgroup_ids: [] };
    expect(shapes(events)).to.deep.equal([
      { type: "user_group", op: "add", group },
      { type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [sub] },
    ]);
  });

  it("update: name, description and each setting, one event per change", async function () {
    const { hamlet, othello } = u;
    const id = await createGroup(hamlet!.client, "Updatable");
    const members = await sys("role:members");
    const set = { direct_members: [othello!.id], direct_subgroups: [members] };
    const events = await verifyRegisterParity(othello!.client, CAPABLE, async () => {
      expectSuccess(
        await hamlet!.client.patch(`/user_groups/${id}`, {
          name: "Updated",
          description: "Now described",
          can_join_group: { new: members },
          can_mention_group: { new: set },
        }),
      );
    });
    expect(shapes(events)).to.deep.equal([
      { type: "user_group", op: "update", group_id: id, data: { name: "Updated" } },
      { type: "user_group", op: "update", group_id: id, data: { description: "Now described" } },
      { type: "user_group", op: "update", group_id: id, data: { can_join_group: members } },
      { type: "user_group", op: "update", group_id: id, data: { can_mention_group: set } },
    ]);
  });

  it("sends nothing for unchanged values and for failed requests", async function () {
    const { hamlet, othello } = u;
    const id = await createGroup(hamlet!.client, "Quiet");
    const events = await verifyRegisterParity(othello!.client, CAPABLE, async () => {
      expectSuccess(
        await hamlet!.client.patch(`/user_groups/${id}`, {
          name: "Quiet",
          can_leave_group: { new: await sys("role:everyone") },
          deactivated: true,
        }),
      );
      expectError(
        await hamlet!.client.patch(`/user_groups/${id}`, {
          name: "Loud",
          can_mention_group: { new: await sys("role:internet") },
        }),
        400,
        "'can_mention_group' setting cannot be set to 'role:internet' group.",
      );
      expectError(
        await othello!.client.post(`/user_groups/${id}/members`, { add: [othello!.id] }),
        400,
        "Insufficient permission",
      );
    });
    expect(events).to.deep.equal([]);
  });

  it("add_members and remove_members", async function () {
    const { hamlet, othello, cordelia } = u;
    const id = await createGroup(hamlet!.client, "Membership events", { members: [hamlet!.id] });
    const events = await verifyRegisterParity(othello!.client, LEGACY, async () => {
      expectSuccess(
        await hamlet!.client.post(`/user_groups/${id}/members`, {
          add: [othello!.id, cordelia!.id],
          delete: [hamlet!.id],
        }),
      );
      expectSuccess(await othello!.client.post(`/user_groups/${id}/members`, { delete: [othello!.id] }));
    });
    expect(shapes(events)).to.deep.equal([
      {
        type: "user_group",
        op: "add_members",
        group_id: id,
        user_ids: [othello!.id, cordelia!.id].sort((a, b) => a - b),
      },
      { type: "user_group", op: "remove_members", group_id: id, user_ids: [hamlet!.id] },
      { type: "user_group", op: "remove_members", group_id: id, user_ids: [othello!.id] },
    ]);
  });

  it("add_subgroups and remove_subgroups", async function () {
    const { hamlet, othello } = u;
    const a = await createGroup(hamlet!.client, "Event sub a");
    const b = await createGroup(hamlet!.client, "Event sub b");
    const id = await createGroup(hamlet!.client, "Event parent", { subgroups: [a] });
    const events = await verifyRegisterParity(othello!.client, CAPABLE, async () => {
      expectSuccess(
        await hamlet!.client.post(`/user_groups/${id}/members`, {
          add_subgroups: [b],
          delete_subgroups: [a],
        }),
      );
      expectSuccess(await hamlet!.client.post(`/user_groups/${id}/subgroups`, { add: [a] }));
    });
    expect(shapes(events)).to.deep.equal([
      { type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [b] },
      { type: "user_group", op: "remove_subgroups", group_id: id, direct_subgroup_ids: [a] },
      { type: "user_group", op: "add_subgroups", group_id: id, direct_subgroup_ids: [a] },
    ]);
  });

  describe("deactivation", function () {
    it("is sent as remove to clients without include_deactivated_groups", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Removed for legacy");
      const events = await verifyRegisterParity(othello!.client, LEGACY, async () => {
        expectSuccess(await hamlet!.client.post(`/user_groups/${id}/deactivate`));
      });
      expect(shapes(events)).to.deep.equal([{ type: "user_group", op: "remove", group_id: id }]);
    });

    it("is sent as update {deactivated: true} to clients with it", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Updated for capable");
      const events = await verifyRegisterParity(othello!.client, CAPABLE, async () => {
        expectSuccess(await hamlet!.client.post(`/user_groups/${id}/deactivate`));
      });
      expect(shapes(events)).to.deep.equal([
        { type: "user_group", op: "update", group_id: id, data: { deactivated: true } },
      ]);
    });
  });

  describe("reactivation", function () {
    it("is sent as a full add to clients without include_deactivated_groups", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Back for legacy", { members: [othello!.id] });
      expectSuccess(await hamlet!.client.post(`/user_groups/${id}/deactivate`));
      const events = await verifyRegisterParity(othello!.client, LEGACY, async () => {
        expectSuccess(
          await hamlet!.client.patch(`/user_groups/${id}`, { name: "Back, renamed", deactivated: false }),
        );
      });
      // The rename happened while deactivated: only the add (with the new name) is sent.
      expect(shapes(events)).to.deep.equal([
        { type: "user_group", op: "add", group: await groupRecord(hamlet!.client, id) },
      ]);
      expect((events[0]!.group as { name: string }).name).to.equal("Back, renamed");
    });

    it("is sent as update {deactivated: false} to clients with it", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Back for capable");
      expectSuccess(await hamlet!.client.post(`/user_groups/${id}/deactivate`));
      const events = await verifyRegisterParity(othello!.client, CAPABLE, async () => {
        expectSuccess(
          await hamlet!.client.patch(`/user_groups/${id}`, { name: "Capably back", deactivated: false }),
        );
      });
      expect(shapes(events)).to.deep.equal([
        { type: "user_group", op: "update", group_id: id, data: { name: "Capably back" } },
        { type: "user_group", op: "update", group_id: id, data: { deactivated: false } },
      ]);
    });
  });

  it("sends changes to a deactivated group only to clients that know deactivated groups", async function () {
    const { hamlet, othello, cordelia } = u;
    const sub = await createGroup(hamlet!.client, "Quiet sub");
    const id = await createGroup(hamlet!.client, "Quietly retired", { members: [hamlet!.id] });
    expectSuccess(await hamlet!.client.post(`/user_groups/${id}/deactivate`));
    let run = 0;
    const act = async () => {
      const joiner = [cordelia!, othello!][run++]!;
      expectSuccess(
        await hamlet!.client.patch(`/user_groups/${id}`, {
          name: `Retired ${Math.random()}`,
          description: `${Math.random()}`,
          can_join_group: { new: { direct_members: [joiner.id], direct_subgroups: [] } },
        }),
      );
      expectSuccess(
        await hamlet!.client.post(`/user_groups/${id}/members`, {
          add: [othello!.id],
          delete: [hamlet!.id],
          add_subgroups: [sub],
        }),
      );
      expectSuccess(
        await hamlet!.client.post(`/user_groups/${id}/members`, {
          add: [hamlet!.id],
          delete: [othello!.id],
          delete_subgroups: [sub],
        }),
      );
    };
    expect(await verifyRegisterParity(othello!.client, LEGACY, act)).to.deep.equal([]);
    const ops = (await verifyRegisterParity(othello!.client, CAPABLE, act)).map((e) => e.op as string);
    expect(ops).to.deep.equal([
      "update",
      "update",
      "update",
      "add_members",
      "remove_members",
      "add_subgroups",
      "add_members",
      "remove_members",
      "remove_subgroups",
    ]);
  });

  it("goes to every active user of the realm, guests and bots included, and no one else", async function () {
    const { hamlet, polonius } = u;
    const bot = await server.factory.user(realm.id, "horatio-bot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: hamlet!.id,
    });
    const other = await server.factory.realm({ yorick: ROLE.OWNER }, "Elsewhere");
    const watchers = [polonius!, bot, other.users.yorick!];
    const queues = await Promise.all(
      watchers.map(async (w) => (await register(w.client, LEGACY)).queue_id as string),
    );
    const id = await createGroup(hamlet!.client, "Broadcast");
    const received = await Promise.all(watchers.map((w, i) => pendingEvents(w.client, queues[i]!)));
    expect(received[0]!.map((e) => [e.op as string, e.group?.id as number])).to.deep.equal([["add", id]]);
    expect(received[1]!.map((e) => [e.op as string, e.group?.id as number])).to.deep.equal([["add", id]]);
    expect(received[2]).to.deep.equal([]);
  });
});
