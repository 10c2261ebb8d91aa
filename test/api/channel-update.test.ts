import { expect } from "chai";
import {
  cast,
  channelMessages,
  channelRow,
  createChannel,
  setRealmFields,
  systemGroupId,
  type Cast,
} from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("PATCH /streams/{stream_id}", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
  });
  after(async function () {
    await server.close();
  });

  const patch = (user: TestUser, id: number, params: Record<string, unknown>) =>
    user.client.patch(`/streams/${id}`, params as Record<string, string>);
  const group = (name: string) => systemGroupId(server, realm, name);

  describe("who may change a channel", function () {
    it("refuses members who do not administer it, and hides private channels they cannot see", async function () {
      const id = await createChannel(u.othello, "Guarded", [u.othello, u.hamlet]);
      const before = await channelRow(server, id);
      expectError(
        await patch(u.hamlet, id, { description: "mine now" }),
        400,
        "You do not have permission to administer this channel.",
      );
      expectError(await patch(u.polonius, id, { description: "mine now" }), 400, "Invalid channel ID");
      const hidden = await createChannel(u.othello, "Guarded private", [u.othello], { invite_only: true });
      expectError(await patch(u.hamlet, hidden, { description: "mine now" }), 400, "Invalid channel ID");
      expectError(await patch(u.hamlet, 999999, { description: "x" }), 400, "Invalid channel ID");
      expect(await channelRow(server, id)).to.deep.equal(before);
    });

    it("lets the channel's administrators and realm administrators change it", async function () {
      const id = await createChannel(u.othello, "Managed", [u.othello]);
      expectSuccess(await patch(u.othello, id, { description: "by the creator" }));
      expectSuccess(await patch(u.iago, id, { description: "by an administrator" }));
      expectSuccess(
        await patch(u.othello, id, {
          can_administer_channel_group: { new: { direct_members: [u.hamlet.id], direct_subgroups: [] } },
        }),
      );
      expectSuccess(await patch(u.hamlet, id, { description: "by the new channel administrator" }));
      expectError(
        await patch(u.othello, id, { description: "no longer" }),
        400,
        "You do not have permission to administer this channel.",
      );
      expect((await channelRow(server, id)).description).to.equal("by the new channel administrator");
    });

    it("never lets guests administer, even when named", async function () {
      const id = await createChannel(u.othello, "Guest admin", [u.othello, u.polonius], {
        can_administer_channel_group: { direct_members: [u.polonius.id], direct_subgroups: [] },
      });
      expectError(
        await patch(u.polonius, id, { description: "guest" }),
        400,
        "You do not have permission to administer this channel.",
      );
    });
  });

  describe("name and description", function () {
    it("renames, posting a notice, and refuses the same or a taken name", async function () {
      const id = await createChannel(u.othello, "Old name", [u.othello]);
      await createChannel(u.othello, "Taken", [u.othello]);
      expectError(
        await patch(u.othello, id, { new_name: "Old name" }),
        400,
        "Channel already has that name.",
      );
      expectError(
        await patch(u.othello, id, { new_name: "taken" }),
        409,
        "Channel 'taken' already exists",
        "CHANNEL_ALREADY_EXISTS",
      );
      expectError(await patch(u.othello, id, { new_name: " " }), 400, "Channel name can't be empty.");
      expectError(
        await patch(u.othello, id, { new_name: "z".repeat(61) }),
        400,
        "Channel name too long (limit: 60 characters).",
      );
      expectSuccess(await patch(u.othello, id, { new_name: "OLD NAME" }));
      expectSuccess(await patch(u.othello, id, { new_name: " New name " }));
      expect((await channelRow(server, id)).name).to.equal("New name");
      const last = (await channelMessages(server, id)).pop()!;
      expect(last.topic).to.equal("channel events");
      expect(last.content).to.equal(
        `@_**Othello Dane|${u.othello.id}** renamed channel **OLD NAME** to **New name**.`,
      );
    });

    it("changes the description (one line, rendered), posting a notice", async function () {
      const id = await createChannel(u.othello, "Described", [u.othello], { description: "before" });
      expectError(
        await patch(u.othello, id, { description: "d".repeat(1025) }),
        400,
        "description is too long (limit: 1024 characters)",
      );
      expectSuccess(await patch(u.othello, id, { description: "*after*\nall" }));
      const row = await channelRow(server, id);
      expect(row).to.include({
        description: "*after* all",
        rendered_description: "<p><em>after</em> all</p>",
      });
      expect((await channelMessages(server, id)).pop()!.content).to.equal(
        `@_**Othello Dane|${u.othello.id}** changed the description for this channel.\n\n` +
          "* **Old description:**\n```` quote\nbefore\n````\n* **New description:**\n```` quote\n*after* all\n````",
      );
    });
  });

  describe("privacy", function () {
    it("makes a channel private and public again, posting notices", async function () {
      const id = await createChannel(u.othello, "Flip", [u.othello]);
      expectSuccess(await patch(u.othello, id, { is_private: true }));
      let row = await channelRow(server, id);
      expect([row.invite_only, row.history_public_to_subscribers]).to.deep.equal([1, 0]);
      expectSuccess(await patch(u.othello, id, { is_private: false }));
      row = await channelRow(server, id);
      expect([row.invite_only, row.history_public_to_subscribers]).to.deep.equal([0, 1]);
      const notices = (await channelMessages(server, id)).slice(-2).map((m) => m.content);
      expect(notices).to.deep.equal([
        `@_**Othello Dane|${u.othello.id}** changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, protected history**.`,
        `@_**Othello Dane|${u.othello.id}** changed the [access permissions](/help/channel-permissions) for this channel from **Private, protected history** to **Public**.`,
      ]);
    });

    it("refuses impossible combinations", async function () {
      const id = await createChannel(u.othello, "Combos", [u.othello]);
      expectError(
        await patch(u.othello, id, { history_public_to_subscribers: false }),
        400,
        "Invalid parameters",
      );
      expectError(
        await patch(u.othello, id, { is_private: false, history_public_to_subscribers: false }),
        400,
        "Invalid parameters",
      );
      expectError(
        await patch(u.othello, id, { is_private: true, is_web_public: true }),
        400,
        "Invalid parameters",
      );
      expect((await channelRow(server, id)).invite_only).to.equal(0);
    });

    it("allows protected history only when everyone may create topics", async function () {
      const id = await createChannel(u.othello, "History", [u.othello], {
        invite_only: true,
        history_public_to_subscribers: true,
        can_create_topic_group: await group("role:members"),
      });
      expectError(
        await patch(u.othello, id, { history_public_to_subscribers: false }),
        400,
        "Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group",
        "INCOMPATIBLE_PARAMETERS",
      );
      expectSuccess(
        await patch(u.othello, id, {
          history_public_to_subscribers: false,
          can_create_topic_group: { new: await group("role:everyone") },
        }),
      );
      expect((await channelRow(server, id)).history_public_to_subscribers).to.equal(0);
      expectError(
        await patch(u.othello, id, { can_create_topic_group: { new: await group("role:members") } }),
        400,
        "Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group",
        "INCOMPATIBLE_PARAMETERS",
      );
    });

    it("needs content access: an administrator must be subscribed to change a private channel's privacy", async function () {
      const id = await createChannel(u.othello, "Private permissions", [u.othello], { invite_only: true });
      expectError(await patch(u.iago, id, { is_private: false }), 400, "Channel content access is required.");
      expectError(
        await patch(u.iago, id, { can_add_subscribers_group: { new: await group("role:members") } }),
        400,
        "Channel content access is required.",
      );
      expect((await channelRow(server, id)).invite_only).to.equal(1);
      // Other properties need no content access.
      expectSuccess(await patch(u.iago, id, { description: "administered from outside" }));
      expectSuccess(
        await patch(u.iago, id, { can_remove_subscribers_group: { new: await group("role:moderators") } }),
      );
      // Once subscribed, the administrator may.
      expectSuccess(
        await u.othello.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Private permissions" }],
          principals: [u.iago.id],
        }),
      );
      expectSuccess(await patch(u.iago, id, { is_private: false }));
      expect((await channelRow(server, id)).invite_only).to.equal(0);
    });

    it("follows the organization's channel-creation permissions", async function () {
      const own = await server.factory.realm();
      const { othello, desdemona } = cast(own);
      const id = await createChannel(othello, "Policy", [othello]);
      await setRealmFields(server, own, {
        can_create_private_channel_group_id: await systemGroupId(server, own, "role:administrators"),
      });
      expectError(await patch(othello, id, { is_private: true }), 400, "Insufficient permission");
      expectError(
        await patch(othello, id, { is_web_public: true }),
        400,
        "Web-public channels are not enabled.",
      );
      await setRealmFields(server, own, { enable_spectator_access: true });
      expectError(await patch(othello, id, { is_web_public: true }), 400, "Insufficient permission");
      expectSuccess(await patch(desdemona, id, { is_web_public: true }));
      expect((await channelRow(server, id)).is_web_public).to.equal(1);
    });

    it("never makes a default channel private", async function () {
      const id = await createChannel(u.othello, "Default public", [u.othello]);
      expectSuccess(await patch(u.iago, id, { is_default_stream: true }));
      expectError(await patch(u.iago, id, { is_private: true }), 400, "A default channel cannot be private.");
      expectSuccess(await patch(u.iago, id, { is_private: true, is_default_stream: false }));
    });

    it("keeps the moderation request channel private", async function () {
      const own = await server.factory.realm();
      const { iago } = cast(own);
      const id = await createChannel(iago, "Reports", [iago], { invite_only: true });
      await setRealmFields(server, own, { moderation_request_channel_id: id });
      expectError(
        await patch(iago, id, { is_private: false }),
        400,
        "A moderation request channel cannot be public.",
      );
    });
  });

  describe("organization-level properties", function () {
    it("lets only administrators change default channels", async function () {
      const id = await createChannel(u.othello, "Maybe default", [u.othello]);
      expectError(
        await patch(u.othello, id, { is_default_stream: true }),
        400,
        "You do not have permission to change default channels.",
      );
      expectSuccess(await patch(u.iago, id, { is_default_stream: true }));
      expect(await server.app.knex("default_streams").where({ stream_id: id }).first()).not.to.equal(
        undefined,
      );
      expectSuccess(await patch(u.iago, id, { is_default_stream: false }));
      expect(await server.app.knex("default_streams").where({ stream_id: id }).first()).to.equal(undefined);
    });

    it("lets only owners change message_retention_days", async function () {
      const id = await createChannel(u.othello, "Retention", [u.othello]);
      expectError(
        await patch(u.iago, id, { message_retention_days: 10 }),
        400,
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expectSuccess(await patch(u.desdemona, id, { message_retention_days: 10 }));
      expect((await channelRow(server, id)).message_retention_days).to.equal(10);
      expectSuccess(await patch(u.desdemona, id, { message_retention_days: "unlimited" }));
      expect((await channelRow(server, id)).message_retention_days).to.equal(-1);
      expectSuccess(await patch(u.desdemona, id, { message_retention_days: "realm_default" }));
      expect((await channelRow(server, id)).message_retention_days).to.equal(null);
      expectError(
        await patch(u.desdemona, id, { message_retention_days: 0 }),
        400,
        "Bad value for 'message_retention_days': 0",
        "REQUEST_VARIABLE_INVALID",
      );
    });
  });

  describe("archiving flag, folder and topics policy", function () {
    it("supports only unarchiving", async function () {
      const id = await createChannel(u.othello, "Unarchivable", [u.othello]);
      expectSuccess(await patch(u.othello, id, { is_archived: true }));
      expect((await channelRow(server, id)).is_archived).to.equal(0);
      expectError(
        await patch(u.othello, id, { is_archived: false }),
        400,
        "Channel is not currently deactivated",
      );
    });

    it("moves a channel into a folder and out of it", async function () {
      const folder = expectSuccess(
        await u.iago.client.post("/channel_folders/create", { name: "Drawer", description: "" }),
      ).channel_folder_id as number;
      const id = await createChannel(u.othello, "Filed", [u.othello]);
      expectError(await patch(u.othello, id, { folder_id: 999999 }), 400, "Invalid channel folder ID");
      expectSuccess(await patch(u.othello, id, { folder_id: folder }));
      expect((await channelRow(server, id)).folder_id).to.equal(folder);
      expectSuccess(await patch(u.othello, id, { folder_id: null }));
      expect((await channelRow(server, id)).folder_id).to.equal(null);
    });

    it("allows empty_topic_only only when every message is in the empty topic", async function () {
      const id = await createChannel(u.othello, "General chat only", [u.othello]);
      expectError(
        await patch(u.othello, id, { topics_policy: "empty_topic_only" }),
        400,
        "To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.",
      );
      await server.app.knex("messages").where({ stream_id: id }).update({ topic: "", topic_key: "" });
      expectSuccess(await patch(u.othello, id, { topics_policy: "empty_topic_only" }));
      expect((await channelRow(server, id)).topics_policy).to.equal("empty_topic_only");
      const notice = (await channelMessages(server, id)).pop()!;
      expect(notice.topic).to.equal("");
      expect(notice.content).to.equal(
        `@_**Othello Dane|${u.othello.id}** changed the "Allow posting to the *general chat* topic?" setting from **Automatic** to **Only *general chat* topic allowed**.`,
      );
      expectError(await patch(u.othello, id, { topics_policy: "sometimes" }), 400, "Invalid topics_policy");
    });
  });

  describe("group settings", function () {
    it("updates a setting with {new, old}, refusing a stale old value", async function () {
      const id = await createChannel(u.othello, "Grouped", [u.othello]);
      const nobody = await group("role:nobody");
      const moderators = await group("role:moderators");
      expectError(
        await patch(u.othello, id, { can_send_message_group: { new: nobody, old: moderators } }),
        400,
        "'old' value does not match the expected value.",
        "EXPECTATION_MISMATCH",
      );
      expectSuccess(
        await patch(u.othello, id, {
          can_send_message_group: { new: moderators, old: await group("role:everyone") },
        }),
      );
      const stream = expectSuccess(await u.othello.client.get(`/streams/${id}`)).stream;
      expect(stream).to.include({ can_send_message_group: moderators, stream_post_policy: 4 });
      expectSuccess(
        await patch(u.othello, id, {
          can_send_message_group: { new: { direct_members: [u.hamlet.id], direct_subgroups: [moderators] } },
        }),
      );
      expect(
        expectSuccess(await u.othello.client.get(`/streams/${id}`)).stream.can_send_message_group,
      ).to.deep.equal({
        direct_members: [u.hamlet.id],
        direct_subgroups: [moderators],
      });
      expectSuccess(
        await patch(u.othello, id, {
          can_send_message_group: {
            new: await group("role:administrators"),
            old: { direct_members: [u.hamlet.id], direct_subgroups: [moderators] },
          },
        }),
      );
      expect(expectSuccess(await u.othello.client.get(`/streams/${id}`)).stream).to.include({
        stream_post_policy: 2,
        is_announcement_only: true,
      });
    });

    it("validates the new value and refuses the plain (non-update) form", async function () {
      const id = await createChannel(u.othello, "Validated", [u.othello]);
      expectError(
        await patch(u.othello, id, { can_subscribe_group: { new: 999999 } }),
        400,
        "Invalid user group",
      );
      expectError(
        await patch(u.othello, id, { can_subscribe_group: { new: await group("role:everyone") } }),
        400,
        "'can_subscribe_group' setting cannot be set to 'role:everyone' group.",
      );
      expectError(
        await patch(u.othello, id, { can_subscribe_group: await group("role:members") }),
        400,
        "can_subscribe_group does not have the expected format",
      );
    });

    it("needs can_set_delete_message_policy_group to let anyone delete messages", async function () {
      const id = await createChannel(u.othello, "Deletions", [u.othello]);
      const everyone = await group("role:everyone");
      expectError(
        await patch(u.othello, id, { can_delete_own_message_group: { new: everyone } }),
        400,
        "Insufficient permission",
      );
      // Prospero (a moderator) may set that policy, but does not administer the channel.
      expectError(
        await patch(u.prospero, id, { can_delete_own_message_group: { new: everyone } }),
        400,
        "You do not have permission to administer this channel.",
      );
      expect((await channelRow(server, id)).can_delete_own_message_group_id).to.equal(
        await group("role:nobody"),
      );
      expectSuccess(await patch(u.iago, id, { can_delete_own_message_group: { new: everyone } }));
      expect((await channelRow(server, id)).can_delete_own_message_group_id).to.equal(everyone);
      // A moderator administering a channel of its own may.
      const own = await createChannel(u.prospero, "Moderated deletions", [u.prospero]);
      expectSuccess(await patch(u.prospero, own, { can_delete_any_message_group: { new: everyone } }));
      expect((await channelRow(server, own)).can_delete_any_message_group_id).to.equal(everyone);
    });
  });

  it("reports unknown parameters and changes nothing for an empty request", async function () {
    const id = await createChannel(u.othello, "Quiet change", [u.othello]);
    const before = await channelRow(server, id);
    const body = expectSuccess(await patch(u.othello, id, { colour: "red" }));
    expect(body.ignored_parameters_unsupported).to.deep.equal(["colour"]);
    expect(await channelRow(server, id)).to.deep.equal(before);
  });
});
