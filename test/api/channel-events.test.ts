import { expect } from "chai";
import { cast, createChannel, subscribe, systemGroupId, type Cast } from "../helpers/channels.js";
import { expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { Event } from "../helpers/apply-events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const CHANNEL_TYPES = ["subscription", "stream", "default_streams", "channel_folders"];
const WITH_SUBSCRIBERS: Params = { fetch_event_types: CHANNEL_TYPES, include_subscribers: true };
const WITHOUT_SUBSCRIBERS: Params = { fetch_event_types: CHANNEL_TYPES };

const kinds = (events: Event[]) => events.map((e) => `${e.type}/${e.op}`);

describe("channel events: register state plus events equals a fresh register", function () {
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

  /** Runs `act` under parity checks for each viewer and both include_subscribers modes. */
  async function parity(viewers: TestUser[], act: (round: number) => Promise<void>) {
    let round = 0;
    for (const viewer of viewers) {
      for (const params of [WITH_SUBSCRIBERS, WITHOUT_SUBSCRIBERS]) {
        await verifyRegisterParity(viewer.client, params, () => act(round++));
      }
    }
  }

  it("stream create and subscription add / peer_add, when channels are created", async function () {
    await parity([u.hamlet, u.othello, u.polonius, u.iago], async (round) => {
      await createChannel(u.hamlet, `Created ${round}`, [u.hamlet, u.cordelia]);
    });
    const events = await verifyRegisterParity(u.othello.client, WITH_SUBSCRIBERS, async () => {
      await createChannel(u.hamlet, "Created watched", [u.hamlet, u.cordelia]);
    });
    expect(kinds(events)).to.deep.equal(["stream/create", "subscription/peer_add", "stream/update"]);
    expect(events[1]).to.deep.include({ user_ids: [u.hamlet.id, u.cordelia.id].sort((a, b) => a - b) });
    expect(events[2]).to.deep.include({ property: "first_message_id" });
  });

  it("subscription add for the subscribed user, peer_add for the others", async function () {
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await createChannel(u.othello, `Join ${i}`, [u.othello]));
    await parity([u.hamlet, u.othello], async (round) => {
      await subscribe(u.hamlet, [`Join ${round}`]);
    });
    const self = await verifyRegisterParity(u.cordelia.client, WITH_SUBSCRIBERS, async () => {
      await subscribe(u.cordelia, ["Join 0"]);
    });
    expect(kinds(self)).to.deep.equal(["subscription/add"]);
    expect(self[0]!.subscriptions[0]).to.include({ stream_id: ids[0], subscriber_count: 3 });
    expect(self[0]!.subscriptions[0].subscribers).to.have.lengthOf(3);
  });

  it("subscription remove and peer_remove, and subscription update", async function () {
    for (let i = 0; i < 4; i++) await createChannel(u.othello, `Leave ${i}`, [u.othello, u.hamlet]);
    await parity([u.hamlet, u.othello], async (round) => {
      expectSuccess(
        await u.hamlet.client.delete("/users/me/subscriptions", { subscriptions: [`Leave ${round}`] }),
      );
    });
    const id = await createChannel(u.othello, "Tweaks", [u.othello, u.hamlet]);
    const events = await verifyRegisterParity(u.hamlet.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(
        await u.hamlet.client.post("/users/me/subscriptions/properties", {
          subscription_data: [
            { stream_id: id, property: "color", value: "#000000" },
            { stream_id: id, property: "in_home_view", value: false },
            { stream_id: id, property: "email_notifications", value: true },
          ],
        }),
      );
    });
    expect(events.map((e): unknown[] => [e.op, e.property, e.value])).to.deep.equal([
      ["update", "color", "#000000"],
      ["update", "in_home_view", false],
      ["update", "is_muted", true],
      ["update", "email_notifications", true],
    ]);
  });

  it("a guest subscribed to a public channel learns it exists", async function () {
    const id = await createChannel(u.othello, "Guest room", [u.othello]);
    const events = await verifyRegisterParity(u.polonius.client, WITH_SUBSCRIBERS, async () => {
      await subscribe(u.othello, ["Guest room"], [u.polonius]);
    });
    expect(kinds(events)).to.deep.equal(["stream/create", "subscription/add", "message/undefined"]);
    expect(events[0]!.streams[0].stream_id).to.equal(id);
    // And loses it again when unsubscribed.
    const gone = await verifyRegisterParity(u.polonius.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(
        await u.othello.client.delete("/users/me/subscriptions", {
          subscriptions: ["Guest room"],
          principals: [u.polonius.id],
        }),
      );
    });
    expect(kinds(gone)).to.deep.equal(["subscription/remove", "stream/delete"]);
  });

  it("stream update for names, descriptions and settings", async function () {
    const id = await createChannel(u.othello, "Mutable", [u.othello, u.hamlet]);
    const moderators = await systemGroupId(server, realm, "role:moderators");
    const changes: Params[] = [
      { new_name: "Mutated" },
      { description: "A *new* description" },
      { topics_policy: "allow_empty_topic" },
      { can_send_message_group: JSON.stringify({ new: moderators }) },
      {
        can_remove_subscribers_group: JSON.stringify({
          new: { direct_members: [u.hamlet.id], direct_subgroups: [] },
        }),
      },
      { message_retention_days: 30 },
    ];
    await parity([u.hamlet, u.cordelia], async (round) => {
      const change = changes[round % changes.length]!;
      const actor = "message_retention_days" in change ? u.desdemona : u.othello;
      expectSuccess(await actor.client.patch(`/streams/${id}`, change));
      if ("new_name" in change)
        expectSuccess(await actor.client.patch(`/streams/${id}`, { new_name: `Mutated ${round}` }));
    });
    const events = await verifyRegisterParity(u.cordelia.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(
        await u.othello.client.patch(`/streams/${id}`, { description: "last", new_name: "Final name" }),
      );
    });
    const updates = events.filter((e) => e.type === "stream");
    expect(updates).to.deep.equal([
      {
        type: "stream",
        op: "update",
        stream_id: id,
        name: updates[0]!.name,
        property: "description",
        value: "last",
        rendered_description: "<p>last</p>",
        id: updates[0]!.id,
      },
      {
        type: "stream",
        op: "update",
        stream_id: id,
        name: updates[0]!.name,
        property: "name",
        value: "Final name",
        id: updates[1]!.id,
      },
    ]);
  });

  it("privacy changes: deletion for those who lose sight, creation and subscribers for those who gain it", async function () {
    const id = await createChannel(u.othello, "Shifting", [u.othello, u.hamlet, u.polonius]);
    const lost = await verifyRegisterParity(u.cordelia.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(await u.othello.client.patch(`/streams/${id}`, { is_private: true }));
    });
    expect(kinds(lost)).to.deep.equal(["stream/delete"]);
    const gained = await verifyRegisterParity(u.cordelia.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(await u.othello.client.patch(`/streams/${id}`, { is_private: false }));
    });
    expect(kinds(gained)).to.deep.equal(["stream/create", "subscription/peer_add"]);
    expect(gained[1]!.user_ids).to.deep.equal(
      [u.othello.id, u.hamlet.id, u.polonius.id].sort((a, b) => a - b),
    );
    const stayed = await verifyRegisterParity(u.hamlet.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(
        await u.othello.client.patch(`/streams/${id}`, {
          is_private: true,
          history_public_to_subscribers: true,
        }),
      );
    });
    const update = stayed.find((e) => e.type === "stream")!;
    expect(update).to.include({
      property: "invite_only",
      value: true,
      history_public_to_subscribers: true,
      is_web_public: false,
    });
    await parity([u.hamlet, u.cordelia, u.iago], async (round) => {
      expectSuccess(await u.othello.client.patch(`/streams/${id}`, { is_private: round % 2 === 1 }));
    });
  });

  it("a group-setting change granting metadata access creates the channel for the new viewer", async function () {
    const id = await createChannel(u.othello, "Granted", [u.othello, u.cordelia], { invite_only: true });
    const events = await verifyRegisterParity(u.hamlet.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(
        await u.othello.client.patch(`/streams/${id}`, {
          can_administer_channel_group: JSON.stringify({
            new: { direct_members: [u.othello.id, u.hamlet.id], direct_subgroups: [] },
          }),
        }),
      );
    });
    expect(kinds(events)).to.deep.equal(["stream/create", "subscription/peer_add"]);
    const revoked = await verifyRegisterParity(u.hamlet.client, WITH_SUBSCRIBERS, async () => {
      expectSuccess(
        await u.othello.client.patch(`/streams/${id}`, {
          can_administer_channel_group: JSON.stringify({
            new: { direct_members: [u.othello.id], direct_subgroups: [] },
          }),
        }),
      );
    });
    expect(kinds(revoked)).to.deep.equal(["stream/delete"]);
  });

  it("members of a new private channel's permission groups learn about it, first message included", async function () {
    const events = await verifyRegisterParity(u.hamlet.client, WITH_SUBSCRIBERS, async () => {
      await createChannel(u.othello, "Invited", [u.othello], {
        invite_only: true,
        can_subscribe_group: { direct_members: [u.hamlet.id], direct_subgroups: [] },
      });
    });
    expect(kinds(events)).to.deep.equal(["stream/create", "subscription/peer_add", "stream/update"]);
    expect(events[2]).to.deep.include({ property: "first_message_id" });
  });

  it("message events go to subscribers with their flags; first_message_id follows", async function () {
    const events = await verifyRegisterParity(
      u.hamlet.client,
      { fetch_event_types: ["subscription", "stream"] },
      async () => {
        await createChannel(u.othello, "Chatter", [u.othello, u.hamlet]);
      },
    );
    const message = events.find((e) => e.type === "message")!;
    expect(message.flags).to.deep.equal([]);
    expect(message.message).to.include({
      type: "stream",
      display_recipient: "Chatter",
      subject: "channel events",
      sender_full_name: "Notification Bot",
      content_type: "text/x-markdown",
      client: "Internal",
    });
    // The creator's copy is read; Markdown clients get HTML.
    const creatorQueue = await register(u.othello.client, { event_types: ["message"], apply_markdown: true });
    await createChannel(u.othello, "Chatter 2", [u.othello, u.hamlet]);
    const [own] = await pendingEvents(u.othello.client, creatorQueue.queue_id);
    expect(own!.flags).to.deep.equal(["read"]);
    expect(own!.message.content_type).to.equal("text/html");
    expect(own!.message.content).to.match(/^<p><strong>Public<\/strong> channel created by/);
    expect(own!.message).not.to.have.property("rendered_content");
  });
});

describe("channel events reach only those who may see the channel", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
  });
  after(async function () {
    await server.close();
  });

  it("nothing about a private channel reaches a member or guest who cannot see it", async function () {
    const outsiders = [u.hamlet, u.polonius];
    const queues = await Promise.all(outsiders.map((user) => register(user.client)));
    const adminQueue = await register(u.iago.client, { event_types: ["stream", "subscription"] });
    const id = await createChannel(u.othello, "Conspiracy", [u.othello, u.cordelia], {
      invite_only: true,
      description: "hush",
    });
    await subscribe(u.othello, ["Conspiracy"], [u.prospero]);
    expectSuccess(await u.othello.client.patch(`/streams/${id}`, { new_name: "Plot", description: "quiet" }));
    expectSuccess(
      await u.othello.client.post("/users/me/subscriptions/properties", {
        subscription_data: [{ stream_id: id, property: "pin_to_top", value: true }],
      }),
    );
    expectSuccess(
      await u.othello.client.delete("/users/me/subscriptions", {
        subscriptions: ["Plot"],
        principals: [u.prospero.id],
      }),
    );
    expectSuccess(await u.othello.client.delete(`/streams/${id}`));
    for (const [i, user] of outsiders.entries()) {
      expect(await pendingEvents(user.client, queues[i]!.queue_id as string), user.email).to.deep.equal([]);
    }
    // Administrators see the channel's metadata and subscribers, never its messages.
    const adminEvents = await pendingEvents(u.iago.client, adminQueue.queue_id);
    expect(kinds(adminEvents)).to.deep.equal([
      "stream/create",
      "subscription/peer_add",
      "stream/update",
      "subscription/peer_add",
      "stream/update",
      "stream/update",
      "subscription/peer_remove",
      "stream/delete",
    ]);
  });

  it("public channel events skip guests who are not subscribed", async function () {
    const guestQueue = await register(u.polonius.client);
    const memberQueue = await register(u.hamlet.client, { event_types: ["stream"] });
    const id = await createChannel(u.othello, "Public square", [u.othello]);
    expectSuccess(await u.othello.client.patch(`/streams/${id}`, { description: "open" }));
    expect(await pendingEvents(u.polonius.client, guestQueue.queue_id)).to.deep.equal([]);
    expect(kinds(await pendingEvents(u.hamlet.client, memberQueue.queue_id))).to.deep.equal([
      "stream/create",
      "stream/update",
      "stream/update",
    ]);
  });
});
