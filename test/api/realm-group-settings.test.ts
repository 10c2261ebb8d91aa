import { expect } from "chai";
import type { RealmRow } from "../../src/db/rows.js";
import { REALM_GROUP_SETTING_NAMES } from "../../src/permissions/setting-registry.js";
import { cast, createChannel, systemGroupId, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { Event, State } from "../helpers/apply-events.js";
import { createGroup } from "../helpers/user-groups.js";
import { waitFor } from "../helpers/webhook-receiver.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";

const DAY_MS = 86_400_000;

/** PATCH /realm: the group-permission settings, the announcement channels, the waiting period. */
describe("PATCH /realm: permissions, channels and the waiting period", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  beforeEach(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
  });
  afterEach(async function () {
    await server.close();
  });

  const patch = (user: TestUser, params: Params) => user.client.patch("/realm", params);
  const group = (name: string) => systemGroupId(server, realm, name);
  const realmState = async (user: TestUser = u.hamlet): Promise<State> => register(user.client, {});
  const realmRow = async (): Promise<RealmRow> =>
    (await server.app.knex<RealmRow>("realms").where({ id: realm.id }).first())!;
  const withoutIds = (events: Event[]) => events.map(({ id: _id, ...event }) => event);
  const watch = async (user: TestUser = u.hamlet) => {
    const queue = (await register(user.client, { event_types: ["realm", "user_group", "stream"] }))
      .queue_id as string;
    return async () => withoutIds(await pendingEvents(user.client, queue));
  };
  const anonymousGroups = () =>
    server.app.knex("user_groups").where({ realm_id: realm.id }).whereNull("name").pluck<number[]>("id");

  describe("group-permission settings", function () {
    it("sets one to a named group: update_dict, the deprecated policy and can_* flags follow (register parity)", async function () {
      const admins = await group("role:administrators");
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        const body = expectSuccess(
          await patch(u.iago, {
            can_create_public_channel_group: { new: admins },
            can_mention_many_users_group: { new: await group("role:moderators") },
          }),
        );
        expect(body.can_create_public_channel_group).to.equal(admins);
      });
      expect(withoutIds(events)).to.deep.equal([
        {
          type: "realm",
          op: "update_dict",
          property: "default",
          data: { can_create_public_channel_group: admins },
        },
        {
          type: "realm",
          op: "update_dict",
          property: "default",
          data: { can_mention_many_users_group: await group("role:moderators") },
        },
      ]);
      const state = await realmState();
      expect(state).to.deep.include({
        realm_can_create_public_channel_group: admins,
        realm_create_public_stream_policy: 2,
        realm_wildcard_mention_policy: 7,
        can_create_public_streams: false,
      });
      // The permission is enforced at once.
      expectError(
        await u.hamlet.client.post("/channels/create", { name: "Wittenberg", subscribers: [u.hamlet.id] }),
        400,
        "Insufficient permission",
      );
      await createChannel(u.iago, "Wittenberg");
    });

    it("sets one to an explicit set (an anonymous group), replaces it, and drops the replaced set", async function () {
      const players = await createGroup(u.iago.client, "players", { members: [u.othello.id] });
      const value = { direct_members: [u.hamlet.id, u.cordelia.id].sort(), direct_subgroups: [players] };
      const before = await anonymousGroups();
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.iago, { can_delete_own_message_group: { new: value } }));
      });
      expect(withoutIds(events)).to.deep.equal([
        {
          type: "realm",
          op: "update_dict",
          property: "default",
          data: { can_delete_own_message_group: value },
        },
      ]);
      expect((await realmState()).realm_can_delete_own_message_group).to.deep.equal(value);
      expect((await anonymousGroups()).filter((id) => !before.includes(id))).to.have.length(1);

      // {[], [G]} is G itself; the explicit set it replaces is gone.
      await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(
          await patch(u.iago, {
            can_delete_own_message_group: {
              new: { direct_members: [], direct_subgroups: [players] },
              old: value,
            },
          }),
        );
      });
      expect((await realmState()).realm_can_delete_own_message_group).to.equal(players);
      expect(await anonymousGroups()).to.deep.equal(before);

      // {[], []} is role:nobody.
      expectSuccess(
        await patch(u.iago, {
          can_delete_own_message_group: { new: { direct_members: [], direct_subgroups: [] } },
        }),
      );
      expect((await realmState()).realm_can_delete_own_message_group).to.equal(await group("role:nobody"));
    });

    it("checks `old` (EXPECTATION_MISMATCH) and sends nothing when the value is unchanged", async function () {
      const members = await group("role:members");
      const row = await realmRow();
      const events = await watch();
      expectError(
        await patch(u.iago, {
          name: "Not now",
          can_add_custom_emoji_group: {
            new: await group("role:moderators"),
            old: await group("role:owners"),
          },
        }),
        400,
        "'old' value does not match the expected value.",
        "EXPECTATION_MISMATCH",
      );
      expect(await realmRow()).to.deep.equal(row);
      const body = expectSuccess(
        await patch(u.iago, { can_add_custom_emoji_group: { new: members, old: members } }),
      );
      expect(body).to.not.have.property("can_add_custom_emoji_group");
      expect(await events()).to.deep.equal([]);
    });

    it("takes every setting of the registry, each refused with its rules", async function () {
      for (const name of REALM_GROUP_SETTING_NAMES) {
        const res = await patch(u.desdemona, { [name]: { new: await group("role:internet") } });
        expectError(res, 400, `'${name}' setting cannot be set to 'role:internet' group.`);
      }
      const row = await realmRow();
      for (const [params, message] of [
        [
          { can_manage_all_groups: { new: await group("role:nobody") } },
          "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.",
        ],
        [
          { can_invite_users_group: { new: await group("role:everyone") } },
          "'can_invite_users_group' setting cannot be set to 'role:everyone' group.",
        ],
        [
          { can_access_all_users_group: { new: await group("role:moderators") } },
          "'can_access_all_users_group' setting cannot be set to 'role:moderators' group.",
        ],
        [
          {
            can_create_web_public_channel_group: {
              new: { direct_members: [u.hamlet.id], direct_subgroups: [] },
            },
          },
          "'can_create_web_public_channel_group' must be a system user group.",
        ],
        [{ can_add_subscribers_group: { new: 999999 } }, "Invalid user group"],
        [
          { can_add_subscribers_group: { new: { direct_members: [999999], direct_subgroups: [] } } },
          "Invalid user ID: 999999",
        ],
        [{ can_add_subscribers_group: 5 }, "can_add_subscribers_group does not have the expected format"],
        [
          { can_add_subscribers_group: { new: "members" } },
          'can_add_subscribers_group["new"] does not have the expected format',
        ],
      ] as Array<[Params, string]>) {
        expectError(await patch(u.desdemona, params), 400, message);
      }
      expect(await realmRow()).to.deep.equal(row);
    });

    it("leaves five settings to owners: administrators are refused, nothing changes", async function () {
      const row = await realmRow();
      const events = await watch();
      const moderators = await group("role:moderators");
      for (const name of [
        "create_multiuse_invite_group",
        "can_create_groups",
        "can_invite_users_group",
        "can_manage_all_groups",
        "can_manage_billing_group",
      ]) {
        expectError(
          await patch(u.iago, {
            [name]: { new: moderators },
            can_add_custom_emoji_group: { new: moderators },
          }),
          400,
          "Must be an organization owner",
          "UNAUTHORIZED_PRINCIPAL",
        );
        expectSuccess(await patch(u.desdemona, { [name]: { new: moderators } }));
      }
      // Only the owner's changes went through.
      const after = await realmRow();
      expect(after.can_add_custom_emoji_group_id).to.equal(row.can_add_custom_emoji_group_id);
      expect(after.can_create_groups_id).to.equal(moderators);
      expect((await events()).map((e) => Object.keys(e.data as object)[0])).to.deep.equal([
        "create_multiuse_invite_group",
        "can_create_groups",
        "can_invite_users_group",
        "can_manage_all_groups",
        "can_manage_billing_group",
      ]);
    });

    it("refuses non-administrators the administrators' settings", async function () {
      const row = await realmRow();
      for (const user of [u.prospero, u.hamlet, u.polonius]) {
        expectError(
          await patch(user, { can_create_public_channel_group: { new: await group("role:members") } }),
          400,
          "Must be an organization administrator",
          "UNAUTHORIZED_PRINCIPAL",
        );
      }
      expect(await realmRow()).to.deep.equal(row);
    });
  });

  describe("announcement and moderation channels", function () {
    it("points them at channels (private ones too) and turns them off with -1 (register parity)", async function () {
      const general = await createChannel(u.othello, "general");
      const mods = await createChannel(u.othello, "mods", [u.othello], { invite_only: true });
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        const body = expectSuccess(
          await patch(u.iago, {
            new_stream_announcements_stream_id: general,
            signup_announcements_stream_id: general,
            zulip_update_announcements_stream_id: general,
            moderation_request_channel_id: mods,
          }),
        );
        expect(body).to.deep.include({
          new_stream_announcements_stream_id: general,
          moderation_request_channel_id: mods,
        });
      });
      expect(withoutIds(events)).to.deep.equal([
        { type: "realm", op: "update", property: "moderation_request_channel_id", value: mods },
        { type: "realm", op: "update", property: "new_stream_announcements_stream_id", value: general },
        { type: "realm", op: "update", property: "signup_announcements_stream_id", value: general },
        { type: "realm", op: "update", property: "zulip_update_announcements_stream_id", value: general },
      ]);
      // New channels are announced there now.
      const messagesIn = async (channelId: number) =>
        (await server.app.knex("messages").where({ stream_id: channelId }).pluck<string[]>("content")).length;
      const before = await messagesIn(general);
      await createChannel(u.hamlet, "Wittenberg", [u.hamlet], { announce: true });
      expect(await messagesIn(general)).to.equal(before + 1);

      const turnedOff = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.iago, { signup_announcements_stream_id: -1 }));
      });
      expect(withoutIds(turnedOff)).to.deep.equal([
        { type: "realm", op: "update", property: "signup_announcements_stream_id", value: -1 },
      ]);
      expect((await realmRow()).signup_announcements_stream_id).to.equal(null);
    });

    it("refuses unknown or archived channels, and a public moderation channel", async function () {
      const general = await createChannel(u.othello, "general");
      const gone = await createChannel(u.othello, "gone");
      expectSuccess(await u.iago.client.delete(`/streams/${gone}`));
      const row = await realmRow();
      for (const [params, message] of [
        [{ new_stream_announcements_stream_id: 999999 }, "Invalid channel ID"],
        [{ signup_announcements_stream_id: gone }, "Invalid channel ID"],
        [{ moderation_request_channel_id: general }, "Moderation request channel must be private."],
        [
          { name: "Half done", moderation_request_channel_id: general },
          "Moderation request channel must be private.",
        ],
      ] as Array<[Params, string]>) {
        expectError(await patch(u.iago, params), 400, message);
      }
      expect(await realmRow()).to.deep.equal(row);
    });
  });

  describe("the waiting period (waiting_period_threshold)", function () {
    const fullMembers = async () =>
      ((await realmState()).realm_user_groups as Event[]).find((g) => g.name === "role:fullmembers")!
        .members as number[];

    it("takes newer members out of role:fullmembers and puts them back when it ends (register parity)", async function () {
      // Othello joined long ago; the others just now.
      await server.app
        .knex("users")
        .where({ id: u.othello.id })
        .update({ date_joined: Math.floor(Date.now() / 1000) - 30 * 86400 });
      server.app.realms.invalidate(realm.id);
      const fullId = await group("role:fullmembers");
      const events = await verifyRegisterParity(u.prospero.client, {}, async () => {
        expectSuccess(await patch(u.desdemona, { waiting_period_threshold: 10 }));
      });
      expect(withoutIds(events)).to.deep.equal([
        { type: "realm", op: "update", property: "waiting_period_threshold", value: 10 },
        {
          type: "user_group",
          op: "remove_members",
          group_id: fullId,
          user_ids: [u.hamlet.id, u.cordelia.id],
        },
      ]);
      // Its direct members are the full members of role member (moderators and up come as a subgroup).
      expect(await fullMembers()).to.deep.equal([u.othello.id]);
      // The permissions follow: a setting of full members leaves the newer ones out.
      expectSuccess(await patch(u.desdemona, { can_create_public_channel_group: { new: fullId } }));
      expect((await realmState(u.hamlet)).can_create_public_streams).to.equal(false);
      expect((await realmState(u.othello)).can_create_public_streams).to.equal(true);

      // Someone joining now waits too.
      const newcomer = await server.factory.user(realm.id, "ophelia");
      expect(await fullMembers()).to.not.include(newcomer.id);

      // Ten days on, the periodic promotion lets them in.
      const watcher = await watch(u.prospero);
      server.clock.advance(10 * DAY_MS + 3600_000);
      await waitFor(async () => (await fullMembers()).includes(u.hamlet.id));
      expect(await fullMembers()).to.include.members([u.hamlet.id, u.cordelia.id, newcomer.id]);
      expect(await watcher()).to.deep.equal([
        {
          type: "user_group",
          op: "add_members",
          group_id: fullId,
          user_ids: [u.hamlet.id, u.cordelia.id, newcomer.id],
        },
      ]);
    });

    it("lifting it brings every member back at once (register parity)", async function () {
      expectSuccess(await patch(u.desdemona, { waiting_period_threshold: 3 }));
      const fullId = await group("role:fullmembers");
      const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
        expectSuccess(await patch(u.desdemona, { waiting_period_threshold: 0 }));
      });
      expect(withoutIds(events)).to.deep.equal([
        { type: "realm", op: "update", property: "waiting_period_threshold", value: 0 },
        {
          type: "user_group",
          op: "add_members",
          group_id: fullId,
          user_ids: [u.hamlet.id, u.othello.id, u.cordelia.id],
        },
      ]);
    });

    it("a member promoted from guest waits as a new member would", async function () {
      expectSuccess(await patch(u.desdemona, { waiting_period_threshold: 3 }));
      expectSuccess(await u.iago.client.patch(`/users/${u.polonius.id}`, { role: 400 }));
      expect(await fullMembers()).to.not.include(u.polonius.id);
      expect(await fullMembers()).to.not.include(u.hamlet.id);
      expect(
        ((await realmState()).realm_user_groups as Event[]).find((g) => g.name === "role:members")!.members,
      ).to.include(u.polonius.id);
    });
  });
});
