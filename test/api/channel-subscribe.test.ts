import { expect } from "chai";
import { CHANNEL_COLORS } from "../../src/actions/subscriptions.js";
import { ROLE } from "../../src/world/roles.js";
import {
  cast,
  channelMessages,
  channelRow,
  createChannel,
  deactivateUser,
  directMessagesTo,
  setRealmFields,
  subscribe,
  subscriberIds,
  systemGroupId,
  type Cast,
} from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("POST /users/me/subscriptions", function () {
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

  const channelByName = async (name: string) =>
    server.app.knex("streams").where({ realm_id: realm.id, name }).first<{ id: number } | undefined>("id");

  it("subscribes the caller to an existing channel and reports who got what, keyed by user ID", async function () {
    await createChannel(u.othello, "Verona");
    const body = await subscribe(u.hamlet, ["Verona"]);
    expect(body.subscribed).to.deep.equal({ [String(u.hamlet.id)]: ["Verona"] });
    expect(body.already_subscribed).to.deep.equal({});
    expect(body.new_subscription_messages_sent).to.equal(true);
    expect(body).not.to.have.property("unauthorized");
    const again = await subscribe(u.hamlet, ["verona"]);
    expect(again.subscribed).to.deep.equal({});
    expect(again.already_subscribed).to.deep.equal({ [String(u.hamlet.id)]: ["Verona"] });
  });

  it("creates missing channels with the creation parameters and ignores them for existing ones", async function () {
    const folderId = expectSuccess(
      await u.iago.client.post("/channel_folders/create", { name: "Kingdoms", description: "" }),
    ).channel_folder_id as number;
    await createChannel(u.othello, "Cyprus");
    const before = await channelRow(server, (await channelByName("Cyprus"))!.id);
    const body = await subscribe(u.hamlet, ["Cyprus", "  Elsinore  "], undefined, {
      subscriptions: [{ name: "Cyprus" }, { name: "  Elsinore  ", description: "A castle\nin Denmark" }],
      invite_only: true,
      history_public_to_subscribers: true,
      topics_policy: "disable_empty_topic",
      folder_id: folderId,
    });
    expect(body.subscribed[String(u.hamlet.id)]).to.deep.equal(["Cyprus", "Elsinore"]);
    const created = await channelRow(server, (await channelByName("Elsinore"))!.id);
    expect(created).to.include({
      description: "A castle in Denmark",
      creator_id: u.hamlet.id,
      topics_policy: "disable_empty_topic",
      folder_id: folderId,
    });
    expect(Boolean(created.invite_only)).to.equal(true);
    expect(Boolean(created.history_public_to_subscribers)).to.equal(true);
    expect(created.rendered_description).to.equal("<p>A castle in Denmark</p>");
    // The existing channel kept its settings.
    expect(await channelRow(server, before.id)).to.deep.equal(before);
  });

  it("gives a private channel protected history by default and a public one shared history always", async function () {
    await subscribe(u.hamlet, ["Protected"], undefined, { invite_only: true });
    await subscribe(u.hamlet, ["Shared"], undefined, { history_public_to_subscribers: false });
    expect(
      Boolean(
        (await channelRow(server, (await channelByName("Protected"))!.id)).history_public_to_subscribers,
      ),
    ).to.be.false;
    expect(
      Boolean((await channelRow(server, (await channelByName("Shared"))!.id)).history_public_to_subscribers),
    ).to.be.true;
  });

  it("validates channel names and descriptions", async function () {
    const c = u.hamlet.client;
    const post = (subscriptions: object[]) => c.post("/users/me/subscriptions", { subscriptions });
    expectError(await post([{ name: "   " }]), 400, "Channel name can't be empty.");
    expectError(await post([{ name: "x".repeat(61) }]), 400, "Channel name too long (limit: 60 characters).");
    expectError(
      await post([{ name: "bad\u0007name" }]),
      400,
      "Invalid character in channel name, at position 4.",
    );
    expectError(
      await post([{ name: "Longdesc", description: "d".repeat(1025) }]),
      400,
      'subscriptions[0]["description"] is too long (limit: 1024 characters)',
    );
    expectError(
      await post([{ name: "Badcolor", color: "red" }]),
      400,
      'subscriptions[0]["color"] is not a valid hex color code',
    );
    expectError(
      await c.post("/users/me/subscriptions", {}),
      400,
      "Missing 'subscriptions' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expect(await channelByName("Longdesc")).to.equal(undefined);
    // A name of exactly 60 characters is fine.
    expectSuccess(await post([{ name: "y".repeat(60) }]));
  });

  it("refuses guests", async function () {
    await createChannel(u.othello, "Guestless");
    expectError(
      await u.polonius.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Guestless" }] }),
      400,
      "Not allowed for guest users",
    );
    expect(await subscriberIds(server, (await channelByName("Guestless"))!.id)).to.deep.equal([u.othello.id]);
  });

  it("subscribes principals given by user ID or API email", async function () {
    await createChannel(u.othello, "Padua");
    const body = await subscribe(u.hamlet, ["Padua"], undefined, {
      principals: [u.cordelia.email, u.prospero.email.toUpperCase()],
    });
    expect(Object.keys(body.subscribed).sort()).to.deep.equal(
      [String(u.prospero.id), String(u.cordelia.id)].sort(),
    );
    await subscribe(u.hamlet, ["Padua"], [u.iago]);
    expect(await subscriberIds(server, (await channelByName("Padua"))!.id)).to.include.members([
      u.cordelia.id,
      u.prospero.id,
      u.iago.id,
    ]);
  });

  it("refuses a missing or deactivated principal with 400 BAD_REQUEST, changing nothing", async function () {
    const own = await server.factory.realm();
    const [hamlet, othello] = [own.users.hamlet!, own.users.othello!];
    await deactivateUser(server, own, own.users.cordelia!);
    expectError(
      await hamlet.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: "Ghosts" }],
        principals: [othello.id, 999999],
      }),
      400,
      "No such user",
    );
    expectError(
      await hamlet.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: "Ghosts" }],
        principals: ["nobody@zulip.test"],
      }),
      400,
      "No such user",
    );
    expectError(
      await hamlet.client.post("/users/me/subscriptions", {
        subscriptions: [{ name: "Ghosts" }],
        principals: [own.users.cordelia!.id],
      }),
      400,
      "User is deactivated",
    );
    // The channel that would have been created was not.
    expect(await server.app.knex("streams").where({ realm_id: own.id }).first()).to.equal(undefined);
  });

  describe("private channels", function () {
    let privateId: number;
    before(async function () {
      privateId = await createChannel(u.othello, "Secret", [u.othello], { invite_only: true });
    });

    it("refuses a non-subscriber with content access denied, or lists it as unauthorized", async function () {
      expectError(
        await u.hamlet.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Secret" }] }),
        400,
        "Unable to access channel (Secret).",
      );
      await createChannel(u.othello, "Open");
      const body = await subscribe(u.hamlet, ["Secret", "Open"], undefined, {
        authorization_errors_fatal: false,
      });
      expect(body.unauthorized).to.deep.equal(["Secret"]);
      expect(body.subscribed).to.deep.equal({ [String(u.hamlet.id)]: ["Open"] });
      expect(await subscriberIds(server, privateId)).to.deep.equal([u.othello.id]);
    });

    it("refuses an administrator who is not subscribed, but lets a subscriber add others", async function () {
      expectError(
        await u.iago.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Secret" }] }),
        400,
        "Unable to access channel (Secret).",
      );
      await subscribe(u.othello, ["Secret"], [u.cordelia]);
      expect(await subscriberIds(server, privateId)).to.include(u.cordelia.id);
    });

    it("lets members of can_add_subscribers_group add others without being subscribed", async function () {
      const id = await createChannel(u.othello, "Council", [u.othello], {
        invite_only: true,
        can_add_subscribers_group: { direct_members: [u.prospero.id], direct_subgroups: [] },
      });
      expectError(
        await u.hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Council" }],
          principals: [u.cordelia.id],
        }),
        400,
        "Unable to access channel (Council).",
      );
      await subscribe(u.prospero, ["Council"], [u.cordelia]);
      expect(await subscriberIds(server, id)).to.deep.equal(
        [u.othello.id, u.cordelia.id].sort((a, b) => a - b),
      );
    });

    it("lets members of can_subscribe_group subscribe themselves", async function () {
      const id = await createChannel(u.othello, "Club", [u.othello], {
        invite_only: true,
        can_subscribe_group: { direct_members: [u.hamlet.id], direct_subgroups: [] },
      });
      await subscribe(u.hamlet, ["Club"]);
      expectError(
        await u.cordelia.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Club" }] }),
        400,
        "Unable to access channel (Club).",
      );
      expect(await subscriberIds(server, id))
        .to.include(u.hamlet.id)
        .and.not.include(u.cordelia.id);
    });
  });

  describe("who may subscribe others", function () {
    it("follows the organization's can_add_subscribers_group, then the channel's settings", async function () {
      const own = await server.factory.realm();
      const { hamlet, iago, othello, cordelia } = cast(own);
      const id = await createChannel(othello, "Rialto", [othello]);
      await setRealmFields(server, own, {
        can_add_subscribers_group_id: await systemGroupId(server, own, "role:administrators"),
      });
      expectError(
        await hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Rialto" }],
          principals: [cordelia.id],
        }),
        400,
        "Insufficient permission",
      );
      expect(await subscriberIds(server, id)).to.deep.equal([othello.id]);
      // Subscribing oneself needs no such permission; giving one's own email counts as others.
      await subscribe(hamlet, ["Rialto"], [hamlet]);
      expectError(
        await hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Rialto" }],
          principals: [hamlet.email],
        }),
        400,
        "Insufficient permission",
      );
      // Administrators may; so may the channel's administrators and can_add_subscribers_group.
      await subscribe(iago, ["Rialto"], [cordelia]);
      await subscribe(othello, ["Rialto"], [own.users.prospero!]);
      expectSuccess(
        await othello.client.patch(`/streams/${id}`, {
          can_add_subscribers_group: { new: { direct_members: [hamlet.id], direct_subgroups: [] } },
        }),
      );
      await subscribe(hamlet, ["Rialto"], [own.users.desdemona!]);
      expect(await subscriberIds(server, id)).to.deep.equal(
        [othello.id, hamlet.id, cordelia.id, own.users.prospero!.id, own.users.desdemona!.id].sort(
          (a, b) => a - b,
        ),
      );
    });

    it("refuses 'Insufficient permission' even when authorization errors are not fatal", async function () {
      const own = await server.factory.realm();
      const [hamlet, othello] = [own.users.hamlet!, own.users.othello!];
      await createChannel(othello, "Belmont", [othello]);
      await setRealmFields(server, own, {
        can_add_subscribers_group_id: await systemGroupId(server, own, "role:nobody"),
      });
      expectError(
        await hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Belmont" }],
          principals: [own.users.cordelia!.id],
          authorization_errors_fatal: false,
        }),
        400,
        "Insufficient permission",
      );
    });
  });

  describe("creation permissions", function () {
    it("follows can_create_public_channel_group and can_create_private_channel_group", async function () {
      const own = await server.factory.realm();
      const hamlet = own.users.hamlet!;
      await setRealmFields(server, own, {
        can_create_public_channel_group_id: await systemGroupId(server, own, "role:administrators"),
      });
      expectError(
        await hamlet.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Nope" }] }),
        400,
        "Insufficient permission",
      );
      await subscribe(hamlet, ["Private ok"], undefined, { invite_only: true });
      await subscribe(own.users.iago!, ["Public ok"]);
      await setRealmFields(server, own, {
        can_create_private_channel_group_id: await systemGroupId(server, own, "role:nobody"),
      });
      expectError(
        await own.users.iago!.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Nope either" }],
          invite_only: true,
        }),
        400,
        "Insufficient permission",
      );
      const names = await server.app.knex("streams").where({ realm_id: own.id }).orderBy("id").pluck("name");
      expect(names).to.deep.equal(["Private ok", "Public ok"]);
    });

    it("lets only administrators create default channels, never private ones", async function () {
      expectError(
        await u.hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Default by member" }],
          is_default_stream: true,
        }),
        400,
        "Insufficient permission",
      );
      expectError(
        await u.iago.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Default private" }],
          is_default_stream: true,
          invite_only: true,
        }),
        400,
        "A default channel cannot be private.",
      );
      await subscribe(u.iago, ["Default by admin"], undefined, { is_default_stream: true });
      const id = (await channelByName("Default by admin"))!.id;
      expect(await server.app.knex("default_streams").where({ stream_id: id }).first()).to.not.equal(
        undefined,
      );
      expect(await channelByName("Default by member")).to.equal(undefined);
    });

    it("creates web-public channels only when enabled, for can_create_web_public_channel_group", async function () {
      const own = await server.factory.realm();
      const post = (user: TestUser, name: string) =>
        user.client.post("/users/me/subscriptions", { subscriptions: [{ name }], is_web_public: true });
      expectError(await post(own.users.desdemona!, "Web 1"), 400, "Web-public channels are not enabled.");
      await setRealmFields(server, own, { enable_spectator_access: true });
      expectError(await post(own.users.iago!, "Web 2"), 400, "Insufficient permission");
      expectSuccess(await post(own.users.desdemona!, "Web 3"));
      const rows = await server.app
        .knex("streams")
        .where({ realm_id: own.id })
        .select("name", "is_web_public");
      expect(rows).to.deep.equal([{ name: "Web 3", is_web_public: 1 }]);
    });

    it("needs the server's web_public_streams_enabled, and refuses a private web-public channel", async function () {
      const closed = await startTestServer({ web_public_streams_enabled: false });
      try {
        const own = await closed.factory.realm({ desdemona: ROLE.OWNER });
        await setRealmFields(closed, own, { enable_spectator_access: true });
        const owner = own.users.desdemona!;
        expectError(
          await owner.client.post("/users/me/subscriptions", {
            subscriptions: [{ name: "Web" }],
            is_web_public: true,
          }),
          400,
          "Web-public channels are not enabled.",
        );
        const state = expectSuccess(await owner.client.post("/register", { fetch_event_types: ["realm"] }));
        expect(state.server_web_public_streams_enabled).to.equal(false);
      } finally {
        await closed.close();
      }
      const own = await server.factory.realm({ desdemona: ROLE.OWNER });
      await setRealmFields(server, own, { enable_spectator_access: true });
      expectError(
        await own.users.desdemona!.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Both" }],
          is_web_public: true,
          invite_only: true,
        }),
        400,
        "Invalid parameters",
      );
    });

    it("lets only owners set message_retention_days", async function () {
      const post = (user: TestUser, name: string, days: unknown) =>
        user.client.post("/users/me/subscriptions", {
          subscriptions: [{ name }],
          message_retention_days: days as string,
        });
      expectError(
        await post(u.iago, "Retained", 30),
        400,
        "Must be an organization owner",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expectSuccess(await post(u.iago, "Realm default", "realm_default"));
      expectSuccess(await post(u.desdemona, "Thirty days", 30));
      expectSuccess(await post(u.desdemona, "Forever", "unlimited"));
      const res = await post(u.desdemona, "Bad", "soon");
      expectError(res, 400, "Bad value for 'message_retention_days': soon", "REQUEST_VARIABLE_INVALID");
      const days = async (name: string) =>
        (await channelRow(server, (await channelByName(name))!.id)).message_retention_days;
      expect(await days("Realm default")).to.equal(null);
      expect(await days("Thirty days")).to.equal(30);
      expect(await days("Forever")).to.equal(-1);
      expect(await channelByName("Retained")).to.equal(undefined);
    });

    it("needs can_set_topics_policy_group for a topics policy other than inherit", async function () {
      const own = await server.factory.realm();
      await setRealmFields(server, own, {
        can_set_topics_policy_group_id: await systemGroupId(server, own, "role:administrators"),
      });
      expectError(
        await own.users.hamlet!.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Topical" }],
          topics_policy: "empty_topic_only",
        }),
        400,
        "Insufficient permission",
      );
      expectSuccess(
        await own.users.hamlet!.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Inherits" }],
          topics_policy: "inherit",
        }),
      );
      expectError(
        await own.users.hamlet!.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Topical" }],
          topics_policy: "whatever",
        }),
        400,
        "Invalid topics_policy",
      );
    });

    it("validates the group settings of new channels", async function () {
      const post = (extra: object) =>
        u.hamlet.client.post("/users/me/subscriptions", { subscriptions: [{ name: "Grouped" }], ...extra });
      const everyone = await systemGroupId(server, realm, "role:everyone");
      const internet = await systemGroupId(server, realm, "role:internet");
      expectError(await post({ can_add_subscribers_group: 999999 }), 400, "Invalid user group");
      expectError(
        await post({ can_add_subscribers_group: everyone }),
        400,
        "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.",
      );
      expectError(
        await post({ can_send_message_group: internet }),
        400,
        "'can_send_message_group' setting cannot be set to 'role:internet' group.",
      );
      expectError(
        await post({ can_administer_channel_group: { direct_members: [999999], direct_subgroups: [] } }),
        400,
        "Invalid user ID: 999999",
      );
      // Deleting messages is the organization's business.
      expectError(await post({ can_delete_any_message_group: everyone }), 400, "Insufficient permission");
      expect(await channelByName("Grouped")).to.equal(undefined);
      expectSuccess(
        await u.prospero.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Grouped" }],
          can_delete_any_message_group: everyone,
          can_send_message_group: { direct_members: [], direct_subgroups: [everyone] },
        }),
      );
      const row = await channelRow(server, (await channelByName("Grouped"))!.id);
      expect(row.can_delete_any_message_group_id).to.equal(everyone);
      expect(row.can_send_message_group_id).to.equal(everyone);
    });

    it("requires can_create_topic_group to be role:everyone with protected history", async function () {
      const moderators = await systemGroupId(server, realm, "role:moderators");
      expectError(
        await u.hamlet.client.post("/users/me/subscriptions", {
          subscriptions: [{ name: "Hushed" }],
          invite_only: true,
          can_create_topic_group: moderators,
        }),
        400,
        "Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group",
        "INCOMPATIBLE_PARAMETERS",
      );
      await subscribe(u.hamlet, ["Hushed"], undefined, {
        invite_only: true,
        history_public_to_subscribers: true,
        can_create_topic_group: moderators,
      });
    });
  });

  describe("Notification Bot messages", function () {
    it("announces new channels, notes their creation in them, and tells others who subscribed them", async function () {
      const own = await server.factory.realm();
      const [hamlet, othello, cordelia] = [own.users.hamlet!, own.users.othello!, own.users.cordelia!];
      const announcementsId = await createChannel(own.users.iago!, "announce", [own.users.iago!]);
      await setRealmFields(server, own, { new_stream_announcements_stream_id: announcementsId });
      await createChannel(othello, "Arden", [othello]);
      const bot = await server.factory.user(own.id, "robot", ROLE.MEMBER, {
        isBot: true,
        botOwnerId: hamlet.id,
      });
      const body = await subscribe(hamlet, ["Arden", "Forest", "Court"], [hamlet, cordelia, bot], {
        announce: true,
      });
      expect(body.new_subscription_messages_sent).to.equal(true);
      const announcement = (await channelMessages(server, announcementsId)).pop()!;
      expect(announcement.topic).to.equal("new channels");
      expect(announcement.content).to.equal(
        `@_**Hamlet Dane|${hamlet.id}** created the following channels: #**Forest**, #**Court**.`,
      );
      const forest = await server.app
        .knex("streams")
        .where({ realm_id: own.id, name: "Forest" })
        .first<{ id: number }>("id");
      const notice = (await channelMessages(server, forest.id))[0]!;
      expect(notice.topic).to.equal("channel events");
      expect(notice.content).to.equal(
        `**Public** channel created by @_**Hamlet Dane|${hamlet.id}**. **Description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\``,
      );
      // Cordelia hears about Arden only (the others are new); neither Hamlet nor the bot hears anything.
      const dms = await directMessagesTo(server, cordelia);
      expect(dms.map((m) => m.content)).to.deep.equal([
        `@_**Hamlet Dane|${hamlet.id}** subscribed you to #**Arden**.`,
      ]);
      expect(await directMessagesTo(server, hamlet)).to.deep.equal([]);
      expect(await directMessagesTo(server, bot)).to.deep.equal([]);
      // The bot is a system bot: not one of the realm's people.
      const people = expectSuccess(await hamlet.client.get("/users")).members as Array<{ full_name: string }>;
      expect(people.map((p) => p.full_name)).not.to.include("Notification Bot");
    });

    it("lists several channels in one message and skips DMs when asked to", async function () {
      const own = await server.factory.realm();
      const [hamlet, othello, cordelia] = [own.users.hamlet!, own.users.othello!, own.users.cordelia!];
      await createChannel(othello, "Bravo", [othello]);
      await createChannel(othello, "Alpha", [othello]);
      await subscribe(othello, ["Bravo", "Alpha"], [cordelia]);
      // Stored as sent, after Zulip's normalize_body (trailing whitespace dropped).
      expect((await directMessagesTo(server, cordelia)).map((m) => m.content)).to.deep.equal([
        `@_**Othello Dane|${othello.id}** subscribed you to the following channels:\n\n* #**Alpha**\n* #**Bravo**`,
      ]);
      await createChannel(othello, "Charlie", [othello]);
      const body = await subscribe(othello, ["Charlie"], [hamlet], { send_new_subscription_messages: false });
      expect(body).not.to.have.property("new_subscription_messages_sent");
      expect(await directMessagesTo(server, hamlet)).to.deep.equal([]);
    });
  });

  it("hands out palette colours not used yet, and honours an explicit colour", async function () {
    const own = await server.factory.realm();
    const [hamlet, othello] = [own.users.hamlet!, own.users.othello!];
    for (const name of ["One", "Two", "Three"]) await createChannel(othello, name, [othello]);
    await subscribe(hamlet, ["One"]);
    await hamlet.client.post("/users/me/subscriptions", {
      subscriptions: [{ name: "Two", color: "#123456" }, { name: "Three" }],
    });
    const subs = expectSuccess(await hamlet.client.get("/users/me/subscriptions")).subscriptions as Array<{
      name: string;
      color: string;
    }>;
    const color = (name: string) => subs.find((s) => s.name === name)!.color;
    expect(color("One")).to.equal(CHANNEL_COLORS[0]);
    expect(color("Two")).to.equal("#123456");
    expect(color("Three")).to.equal(CHANNEL_COLORS[1]);
  });

  it("subscribes to archived channels too (feature level 362)", async function () {
    const id = await createChannel(u.othello, "Mothballed", [u.othello]);
    expectSuccess(await u.othello.client.delete(`/streams/${id}`));
    await subscribe(u.cordelia, ["Mothballed"]);
    expect(await subscriberIds(server, id)).to.include(u.cordelia.id);
  });
});
