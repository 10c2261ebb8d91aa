import { expect } from "chai";
import { CHANNEL_GROUP_SETTING_NAMES } from "../../src/permissions/setting-registry.js";
import {
  cast,
  channelMessages,
  channelRow,
  createChannel,
  setRealmFields,
  subscriberIds,
  systemGroupId,
  type Cast,
} from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("POST /channels/create", function () {
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

  it("creates a channel with its subscribers and returns its ID", async function () {
    const res = await u.hamlet.client.post("/channels/create", {
      name: "  Dunsinane ",
      description: "A hill\nin Scotland",
      subscribers: [u.hamlet.id, u.othello.id],
    });
    const body = expectSuccess(res);
    expect(Object.keys(body).sort()).to.deep.equal(["id", "msg", "result"]);
    const row = await channelRow(server, body.id as number);
    expect(row).to.include({ name: "Dunsinane", description: "A hill in Scotland", creator_id: u.hamlet.id });
    expect(row.topics_policy).to.equal("inherit");
    expect(await subscriberIds(server, row.id)).to.deep.equal(
      [u.hamlet.id, u.othello.id].sort((a, b) => a - b),
    );
    const [notice] = await channelMessages(server, row.id);
    expect(notice!.content).to.match(/^\*\*Public\*\* channel created by @_\*\*Hamlet Dane\|\d+\*\*/);
    expect(notice!.content).to.contain("A hill in Scotland");
  });

  it("refuses an existing name, whatever its case, with 409 CHANNEL_ALREADY_EXISTS", async function () {
    await createChannel(u.hamlet, "Birnam");
    const res = await u.othello.client.post("/channels/create", {
      name: "birnam",
      subscribers: [u.othello.id],
    });
    expectError(res, 409, "Channel 'birnam' already exists", "CHANNEL_ALREADY_EXISTS");
  });

  it("requires a name and subscribers and validates both", async function () {
    const c = u.hamlet.client;
    expectError(
      await c.post("/channels/create", { name: "Nosubs" }),
      400,
      "Missing 'subscribers' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await c.post("/channels/create", { subscribers: [] }),
      400,
      "Missing 'name' argument",
      "REQUEST_VARIABLE_MISSING",
    );
    expectError(
      await c.post("/channels/create", { name: "", subscribers: [] }),
      400,
      "Channel name can't be empty.",
    );
    expectError(
      await c.post("/channels/create", { name: "Ghostly", subscribers: [424242] }),
      400,
      "No such user",
    );
    expectError(
      await c.post("/channels/create", { name: "Wordy", subscribers: [], description: "w".repeat(1025) }),
      400,
      "description is too long (limit: 1024 characters)",
    );
    const names = await server.app.knex("streams").where({ realm_id: realm.id }).pluck("name");
    expect(names).not.to.include.members(["Nosubs", "Ghostly", "Wordy"]);
  });

  it("refuses guests", async function () {
    expectError(
      await u.polonius.client.post("/channels/create", { name: "Arras", subscribers: [u.polonius.id] }),
      400,
      "Not allowed for guest users",
    );
  });

  it("accepts every channel group setting and stores it", async function () {
    const moderators = await systemGroupId(server, realm, "role:moderators");
    const everyone = await systemGroupId(server, realm, "role:everyone");
    const params: Record<string, unknown> = {};
    for (const setting of CHANNEL_GROUP_SETTING_NAMES) params[setting] = moderators;
    params.can_create_topic_group = everyone;
    params.can_administer_channel_group = {
      direct_members: [u.hamlet.id, u.othello.id],
      direct_subgroups: [],
    };
    const id = await createChannel(u.prospero, "Settled", [u.prospero], params as Record<string, number>);
    const stream = expectSuccess(await u.prospero.client.get(`/streams/${id}`)).stream;
    for (const setting of CHANNEL_GROUP_SETTING_NAMES) {
      if (setting === "can_create_topic_group") expect(stream[setting]).to.equal(everyone);
      else if (setting === "can_administer_channel_group") {
        expect(stream[setting]).to.deep.equal({
          direct_members: [u.hamlet.id, u.othello.id].sort((a, b) => a - b),
          direct_subgroups: [],
        });
      } else expect(stream[setting], setting).to.equal(moderators);
    }
  });

  it("defaults can_administer_channel_group to the creator and the rest to Zulip's defaults", async function () {
    const id = await createChannel(u.cordelia, "Defaults");
    const stream = expectSuccess(await u.cordelia.client.get(`/streams/${id}`)).stream;
    const group = (name: string) => systemGroupId(server, realm, name);
    expect(stream.can_administer_channel_group).to.deep.equal({
      direct_members: [u.cordelia.id],
      direct_subgroups: [],
    });
    expect(stream.can_add_subscribers_group).to.equal(await group("role:nobody"));
    expect(stream.can_remove_subscribers_group).to.equal(await group("role:administrators"));
    expect(stream.can_send_message_group).to.equal(await group("role:everyone"));
    expect(stream.can_create_topic_group).to.equal(await group("role:everyone"));
    expect(stream.can_subscribe_group).to.equal(await group("role:nobody"));
    expect(stream).to.include({
      stream_post_policy: 1,
      is_announcement_only: false,
      topics_policy: "inherit",
    });
  });

  it("requires can_create_topic_group to be role:everyone for a private channel with protected history", async function () {
    const members = await systemGroupId(server, realm, "role:members");
    const everyone = await systemGroupId(server, realm, "role:everyone");
    const post = (name: string, extra: object) =>
      u.hamlet.client.post("/channels/create", {
        name,
        subscribers: [u.hamlet.id],
        invite_only: true,
        ...extra,
      });
    expectError(
      await post("Cloister", { can_create_topic_group: members }),
      400,
      "Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group",
      "INCOMPATIBLE_PARAMETERS",
    );
    // An explicit set containing everyone is not role:everyone.
    expectError(
      await post("Cloister", {
        can_create_topic_group: { direct_members: [u.hamlet.id], direct_subgroups: [everyone] },
      }),
      400,
      "Unsupported parameter combination: history_public_to_subscribers, can_create_topic_group",
      "INCOMPATIBLE_PARAMETERS",
    );
    expectSuccess(await post("Cloister", { can_create_topic_group: everyone }));
    expectSuccess(
      await post("Chapter", { can_create_topic_group: members, history_public_to_subscribers: true }),
    );
  });

  it("puts the channel in a folder, refusing an unknown folder", async function () {
    expectError(
      await u.hamlet.client.post("/channels/create", { name: "Lost", subscribers: [], folder_id: 999999 }),
      400,
      "Invalid channel folder ID",
    );
    const folder = expectSuccess(
      await u.iago.client.post("/channel_folders/create", { name: "Scotland", description: "" }),
    ).channel_folder_id as number;
    const id = await createChannel(u.hamlet, "Inverness", [u.hamlet], { folder_id: folder });
    expect((await channelRow(server, id)).folder_id).to.equal(folder);
  });

  it("subscribes others only with permission to", async function () {
    const own = await server.factory.realm();
    const { hamlet, othello } = cast(own);
    await setRealmFields(server, own, {
      can_add_subscribers_group_id: await systemGroupId(server, own, "role:administrators"),
    });
    // As the new channel's administrator Hamlet may add subscribers, unless he gave that away.
    await createChannel(hamlet, "Mine", [hamlet, othello]);
    expectError(
      await hamlet.client.post("/channels/create", {
        name: "Not mine",
        subscribers: [hamlet.id, othello.id],
        can_administer_channel_group: await systemGroupId(server, own, "role:administrators"),
      }),
      400,
      "Insufficient permission",
    );
    const names = await server.app.knex("streams").where({ realm_id: own.id }).pluck("name");
    expect(names).to.deep.equal(["Mine"]);
  });

  it("announces the channel when asked to", async function () {
    const own = await server.factory.realm();
    const { iago, hamlet } = cast(own);
    const announcements = await createChannel(iago, "news", [iago]);
    await setRealmFields(server, own, { new_stream_announcements_stream_id: announcements });
    await createChannel(hamlet, "Quiet", [hamlet]);
    await createChannel(hamlet, "Loud", [hamlet], { announce: true });
    const messages = await channelMessages(server, announcements);
    expect(messages.map((m) => m.content)).to.include(
      `@_**Hamlet Dane|${hamlet.id}** created a new channel #**Loud**.`,
    );
    expect(messages.map((m) => m.content).join()).not.to.contain("Quiet");
  });
});
