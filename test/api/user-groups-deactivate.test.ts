import { expect } from "chai";
import { insertReturningId } from "../../src/db/insert.js";
import { ROLE } from "../../src/world/roles.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createGroup, groupRecord, setRealmGroupSetting, systemGroupId } from "../helpers/user-groups.js";

describe("user groups: deactivation and reactivation", function () {
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

  const deactivate = (user: TestUser, id: number) => user.client.post(`/user_groups/${id}/deactivate`);
  const isDeactivated = async (id: number) =>
    (await groupRecord(u.desdemona!.client, id)).deactivated as boolean;
  const only = (user: TestUser) => ({ direct_members: [user.id], direct_subgroups: [] });

  /** A channel row (channels are another branch's endpoints), with some group settings. */
  async function channel(name: string, settings: Record<string, number>, archived = false): Promise<number> {
    const id = await server.app.db.transaction((tx) =>
      insertReturningId(tx.knex, "streams", {
        realm_id: realm.id,
        name,
        name_key: name.toLowerCase(),
        date_created: tx.now,
        is_archived: archived,
        ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`${k}_id`, v])),
      }),
    );
    return id;
  }

  describe("permission", function () {
    it("is for managers: the creator by default and the owner; others are refused", async function () {
      const { hamlet, othello, iago, desdemona } = u;
      const id = await createGroup(hamlet!.client, "Doomed");
      for (const user of [othello!, iago!]) {
        expectError(await deactivate(user, id), 400, "Insufficient permission");
      }
      expect(await isDeactivated(id)).to.equal(false);
      expectSuccess(await deactivate(hamlet!, id));
      expect(await isDeactivated(id)).to.equal(true);
      const other = await createGroup(hamlet!.client, "Doomed by the owner");
      expectSuccess(await deactivate(desdemona!, other));
      expect(await isDeactivated(other)).to.equal(true);
    });

    it("follows can_manage_group through nested groups, and can_manage_all_groups", async function () {
      const fresh = await server.factory.realm();
      const { hamlet, cordelia, prospero } = fresh.users;
      const inner = await createGroup(hamlet!.client, "Deactivators inner", { members: [cordelia!.id] });
      const outer = await createGroup(hamlet!.client, "Deactivators", { subgroups: [inner] });
      const id = await createGroup(hamlet!.client, "Nested doomed", { can_manage_group: outer });
      expectSuccess(await deactivate(cordelia!, id));
      const second = await createGroup(hamlet!.client, "Moderated doomed");
      expectError(await deactivate(prospero!, second), 400, "Insufficient permission");
      await setRealmGroupSetting(
        server,
        fresh.id,
        "can_manage_all_groups",
        await systemGroupId(server, fresh.id, "role:moderators"),
      );
      expectSuccess(await deactivate(prospero!, second));
    });

    it("refuses guests by permission (no guest check here), and lets managing bots deactivate", async function () {
      const { hamlet, polonius } = u;
      const bot = await server.factory.user(realm.id, "francisco-bot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: hamlet!.id,
      });
      const id = await createGroup(hamlet!.client, "Guest-managed", {
        can_manage_group: { direct_members: [polonius!.id, bot.id], direct_subgroups: [] },
      });
      expectError(await deactivate(polonius!, id), 400, "Insufficient permission");
      expect(await isDeactivated(id)).to.equal(false);
      expectSuccess(await deactivate(bot, id));
      expect(await isDeactivated(id)).to.equal(true);
    });

    it("refuses system groups, unknown groups, and groups already deactivated", async function () {
      const client = u.desdemona!;
      expectError(await deactivate(client, await sys("role:members")), 400, "Insufficient permission");
      expectError(await deactivate(client, 99999), 400, "Invalid user group");
      const id = await createGroup(client.client, "Twice");
      expectSuccess(await deactivate(client, id));
      expectError(await deactivate(client, id), 400, "User group is deactivated.");
    });
  });

  describe("a group still in use", function () {
    it("cannot be deactivated while it is a subgroup of an active group", async function () {
      const client = u.hamlet!;
      const sub = await createGroup(client.client, "Busy sub");
      const parent = await createGroup(client.client, "Busy parent", { subgroups: [sub] });
      const res = await deactivate(client, sub);
      expectError(res, 400, "Cannot deactivate user group in use.", "CANNOT_DEACTIVATE_GROUP_IN_USE");
      expect(res.body.objections).to.deep.equal([{ type: "subgroup", supergroup_ids: [parent] }]);
      expect(await isDeactivated(sub)).to.equal(false);
      // Once the supergroup is deactivated, it no longer counts.
      expectSuccess(await deactivate(client, parent));
      expectSuccess(await deactivate(client, sub));
    });

    it("cannot be deactivated while another active group's setting uses it, directly or in a set", async function () {
      const { hamlet, othello } = u;
      const used = await createGroup(hamlet!.client, "Used in settings");
      const direct = await createGroup(hamlet!.client, "Uses directly", {
        can_join_group: used,
        can_mention_group: used,
      });
      const viaSet = await createGroup(hamlet!.client, "Uses in a set", {
        can_leave_group: { direct_members: [othello!.id], direct_subgroups: [used] },
      });
      const res = await deactivate(hamlet!, used);
      expectError(res, 400, "Cannot deactivate user group in use.", "CANNOT_DEACTIVATE_GROUP_IN_USE");
      expect(res.body.objections).to.deep.equal([
        { type: "user_group", group_id: direct, settings: ["can_join_group", "can_mention_group"] },
        { type: "user_group", group_id: viaSet, settings: ["can_leave_group"] },
      ]);
      // A deactivated group's settings do not count.
      expectSuccess(await deactivate(hamlet!, direct));
      expectSuccess(
        await hamlet!.client.patch(`/user_groups/${viaSet}`, {
          can_leave_group: { new: await sys("role:everyone") },
        }),
      );
      expectSuccess(await deactivate(hamlet!, used));
    });

    it("cannot be deactivated while a realm setting uses it", async function () {
      const fresh = await server.factory.realm();
      const { hamlet } = fresh.users;
      const id = await createGroup(hamlet!.client, "Realm creators");
      await setRealmGroupSetting(server, fresh.id, "can_create_groups", id);
      await setRealmGroupSetting(server, fresh.id, "can_add_custom_emoji_group", id);
      const res = await deactivate(fresh.users.desdemona!, id);
      expectError(res, 400, "Cannot deactivate user group in use.", "CANNOT_DEACTIVATE_GROUP_IN_USE");
      expect(res.body.objections).to.deep.equal([
        { type: "realm", settings: ["can_add_custom_emoji_group", "can_create_groups"] },
      ]);
    });

    it("cannot be deactivated while an unarchived channel's setting uses it", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Channel admins");
      const anon = await server.app.db.transaction(async (tx) => {
        const group = await insertReturningId(tx.knex, "user_groups", { realm_id: realm.id, name: null });
        await tx.knex("user_group_members").insert({ group_id: group, user_id: othello!.id });
        await tx.knex("user_group_subgroups").insert({ supergroup_id: group, subgroup_id: id });
        return group;
      });
      server.app.realms.invalidate(realm.id);
      const denmark = await channel("Denmark", {
        can_administer_channel_group: id,
        can_send_message_group: id,
      });
      const norway = await channel("Norway", { can_remove_subscribers_group: anon });
      await channel("Archived", { can_administer_channel_group: id }, true);
      const res = await deactivate(hamlet!, id);
      expectError(res, 400, "Cannot deactivate user group in use.", "CANNOT_DEACTIVATE_GROUP_IN_USE");
      expect(res.body.objections).to.deep.equal([
        {
          type: "channel",
          channel_id: denmark,
          settings: ["can_administer_channel_group", "can_send_message_group"],
        },
        { type: "channel", channel_id: norway, settings: ["can_remove_subscribers_group"] },
      ]);
      expect(await isDeactivated(id)).to.equal(false);
    });

    it("reports every kind of use, in Zulip's order", async function () {
      const fresh = await server.factory.realm();
      const { hamlet } = fresh.users;
      const id = await createGroup(hamlet!.client, "Everywhere");
      const parent = await createGroup(hamlet!.client, "Everywhere parent", { subgroups: [id] });
      const user = await createGroup(hamlet!.client, "Everywhere user", { can_join_group: id });
      await setRealmGroupSetting(server, fresh.id, "can_create_groups", id);
      const stream = await server.app.db.transaction((tx) =>
        insertReturningId(tx.knex, "streams", {
          realm_id: fresh.id,
          name: "Everywhere",
          name_key: "everywhere",
          date_created: tx.now,
          can_subscribe_group_id: id,
        }),
      );
      const res = await deactivate(fresh.users.desdemona!, id);
      expect(res.body.objections).to.deep.equal([
        { type: "subgroup", supergroup_ids: [parent] },
        { type: "channel", channel_id: stream, settings: ["can_subscribe_group"] },
        { type: "user_group", group_id: user, settings: ["can_join_group"] },
        { type: "realm", settings: ["can_create_groups"] },
      ]);
      expect(Object.keys(res.body)).to.deep.equal(["objections", "result", "msg", "code"]);
    });
  });

  describe("a deactivated group", function () {
    it("cannot be used in a setting value, directly or in a set, on create or update", async function () {
      const { hamlet, othello } = u;
      const retired = await createGroup(hamlet!.client, "Retired value");
      expectSuccess(await deactivate(hamlet!, retired));
      expectError(
        await hamlet!.client.post("/user_groups/create", {
          name: "Uses retired",
          description: "",
          members: [],
          can_join_group: retired,
        }),
        400,
        "User group is deactivated.",
      );
      expectError(
        await hamlet!.client.post("/user_groups/create", {
          name: "Uses retired",
          description: "",
          members: [],
          can_join_group: { direct_members: [othello!.id], direct_subgroups: [retired] },
        }),
        400,
        "User group is deactivated.",
      );
      const id = await createGroup(hamlet!.client, "Would use retired");
      expectError(
        await hamlet!.client.patch(`/user_groups/${id}`, { can_mention_group: { new: retired } }),
        400,
        "User group is deactivated.",
      );
      expect((await groupRecord(hamlet!.client, id)).can_mention_group).to.equal(await sys("role:everyone"));
    });

    it("keeps its own name, description and permissions editable", async function () {
      const { hamlet } = u;
      const id = await createGroup(hamlet!.client, "Retired but edited");
      expectSuccess(await deactivate(hamlet!, id));
      expectSuccess(
        await hamlet!.client.patch(`/user_groups/${id}`, {
          name: "Retired, renamed",
          description: "still here",
          can_join_group: { new: await sys("role:members") },
        }),
      );
      expect(await groupRecord(hamlet!.client, id)).to.include({
        name: "Retired, renamed",
        description: "still here",
        can_join_group: await sys("role:members"),
        deactivated: true,
      });
    });

    it("governs its own edits by its own permissions while deactivated", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Retired managed");
      expectSuccess(await deactivate(hamlet!, id));
      expectError(
        await othello!.client.patch(`/user_groups/${id}`, { name: "x" }),
        400,
        "Insufficient permission",
      );
      expectSuccess(
        await hamlet!.client.patch(`/user_groups/${id}`, { can_manage_group: { new: only(othello!) } }),
      );
      expectSuccess(await othello!.client.patch(`/user_groups/${id}`, { name: "Othello's retired" }));
      expectError(
        await hamlet!.client.patch(`/user_groups/${id}`, { name: "y" }),
        400,
        "Insufficient permission",
      );
    });

    it("is reactivated by deactivated=false, and is usable again", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Phoenix");
      expectSuccess(await deactivate(hamlet!, id));
      // Not for someone who may not manage it.
      expectError(
        await othello!.client.patch(`/user_groups/${id}`, { deactivated: false }),
        400,
        "Insufficient permission",
      );
      expect(await isDeactivated(id)).to.equal(true);
      expectSuccess(await hamlet!.client.patch(`/user_groups/${id}`, { deactivated: false }));
      expect(await isDeactivated(id)).to.equal(false);
      expectSuccess(await hamlet!.client.get(`/user_groups/${id}/members`));
      const user = await createGroup(hamlet!.client, "Uses phoenix", { can_join_group: id });
      expect((await groupRecord(hamlet!.client, user)).can_join_group).to.equal(id);
    });

    it("deactivated=true does nothing (use the deactivate endpoint), but still needs permission", async function () {
      const { hamlet, othello } = u;
      const id = await createGroup(hamlet!.client, "Stays active");
      expectSuccess(await hamlet!.client.patch(`/user_groups/${id}`, { deactivated: true }));
      expect(await isDeactivated(id)).to.equal(false);
      expectError(
        await othello!.client.patch(`/user_groups/${id}`, { deactivated: true }),
        400,
        "Insufficient permission",
      );
      // deactivated=false on an active group is a no-op too.
      expectSuccess(await hamlet!.client.patch(`/user_groups/${id}`, { deactivated: false }));
      expect(await isDeactivated(id)).to.equal(false);
    });
  });
});
