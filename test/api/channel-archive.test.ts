import { expect } from "chai";
import {
  cast,
  channelMessages,
  channelRow,
  createChannel,
  setRealmFields,
  subscriberIds,
  type Cast,
} from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const ARCHIVED_CAPABLE = { client_capabilities: { archived_channels: true } };

describe("archiving channels", function () {
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

  const names = (list: Array<{ name: string }>) => list.map((s) => s.name);

  it("lets channel administrators archive, refuses others, and refuses archiving twice", async function () {
    const id = await createChannel(u.othello, "Archive me", [u.othello, u.hamlet]);
    expectError(
      await u.hamlet.client.delete(`/streams/${id}`),
      400,
      "You do not have permission to administer this channel.",
    );
    expectError(await u.polonius.client.delete(`/streams/${id}`), 400, "Invalid channel ID");
    expect((await channelRow(server, id)).is_archived).to.equal(0);
    expectSuccess(await u.othello.client.delete(`/streams/${id}`));
    expectError(await u.othello.client.delete(`/streams/${id}`), 400, "Channel is already deactivated");
    expectError(await u.iago.client.delete("/streams/999999"), 400, "Invalid channel ID");
    const row = await channelRow(server, id);
    expect(row).to.include({ is_archived: 1, name: "Archive me" });
    // Subscriptions stay; a notice is posted.
    expect(await subscriberIds(server, id)).to.deep.equal([u.hamlet.id, u.othello.id].sort((a, b) => a - b));
    expect((await channelMessages(server, id)).pop()!.content).to.equal(
      "Channel #**Archive me** has been archived.",
    );
  });

  it("keeps archived channels readable for clients that declare archived_channels", async function () {
    const id = await createChannel(u.othello, "Dusty", [u.othello, u.hamlet]);
    expectSuccess(await u.iago.client.delete(`/streams/${id}`));
    const plain = await register(u.hamlet.client, { fetch_event_types: ["subscription", "stream"] });
    expect(names(plain.subscriptions)).not.to.include("Dusty");
    expect(names(plain.streams)).not.to.include("Dusty");
    const capable = await register(u.hamlet.client, {
      fetch_event_types: ["subscription", "stream"],
      ...ARCHIVED_CAPABLE,
    });
    const sub = (capable.subscriptions as Array<{ name: string; is_archived: boolean }>).find(
      (s) => s.name === "Dusty",
    )!;
    expect(sub.is_archived).to.equal(true);
    expect(names(capable.streams)).to.include("Dusty");
    // REST: hidden unless asked for.
    const subs = expectSuccess(await u.hamlet.client.get("/users/me/subscriptions")).subscriptions;
    expect(names(subs)).not.to.include("Dusty");
    expect(names(expectSuccess(await u.hamlet.client.get("/streams")).streams)).not.to.include("Dusty");
    const all = expectSuccess(await u.hamlet.client.get("/streams", { exclude_archived: false }))
      .streams as Array<{
      name: string;
      is_archived: boolean;
    }>;
    expect(all.find((s) => s.name === "Dusty")!.is_archived).to.equal(true);
    expectError(await u.hamlet.client.get(`/streams/${id}`), 400, "Invalid channel ID");
    expectError(
      await u.hamlet.client.get("/get_stream_id", { stream: "Dusty" }),
      400,
      "Invalid channel name 'Dusty'",
    );
    // The name stays taken.
    expectError(
      await u.hamlet.client.post("/channels/create", { name: "dusty", subscribers: [] }),
      409,
      "Channel 'dusty' already exists",
      "CHANNEL_ALREADY_EXISTS",
    );
  });

  it("stops being a default channel and the announcements channel", async function () {
    const own = await server.factory.realm();
    const { iago, hamlet } = cast(own);
    const id = await createChannel(iago, "Bulletins", [iago]);
    await setRealmFields(server, own, { new_stream_announcements_stream_id: id });
    expectSuccess(await iago.client.post("/default_streams", { stream_id: id }));
    const queue = await register(hamlet.client, { event_types: ["default_streams", "realm"] });
    const events = await verifyRegisterParity(
      hamlet.client,
      { fetch_event_types: ["default_streams", "realm", "stream"] },
      async () => {
        expectSuccess(await iago.client.delete(`/streams/${id}`));
      },
    );
    expect(events.map((e) => `${e.type}/${e.op ?? ""}`)).to.deep.equal([
      "realm/update_dict",
      "default_streams/",
      "stream/delete",
    ]);
    expect(events[0]!.data).to.deep.equal({ new_stream_announcements_stream_id: -1 });
    expect(await server.app.knex("default_streams").where({ stream_id: id }).first()).to.equal(undefined);
    const realmRow = await server.app.knex("realms").where({ id: own.id }).first();
    expect(realmRow.new_stream_announcements_stream_id).to.equal(null);
    expect((await pendingEvents(hamlet.client, queue.queue_id)).length).to.equal(2);
  });

  it("tells clients: an update for those with archived_channels, a deletion for the others", async function () {
    const id = await createChannel(u.othello, "Told", [u.othello, u.hamlet]);
    const params = { fetch_event_types: ["subscription", "stream"], include_subscribers: true };
    let capableEvents: Array<Record<string, unknown>> = [];
    const capable = await register(u.cordelia.client, { ...params, ...ARCHIVED_CAPABLE });
    const plainEvents = await verifyRegisterParity(u.hamlet.client, params, async () => {
      expectSuccess(await u.othello.client.delete(`/streams/${id}`));
      capableEvents = await pendingEvents(u.cordelia.client, capable.queue_id);
    });
    expect(plainEvents.filter((e) => e.type === "stream")).to.deep.equal([
      {
        type: "stream",
        op: "delete",
        streams: [{ stream_id: id }],
        stream_ids: [id],
        id: plainEvents[0]!.id,
      },
    ]);
    expect(capableEvents.filter((e) => e.type === "stream")).to.deep.equal([
      {
        type: "stream",
        op: "update",
        stream_id: id,
        name: "Told",
        property: "is_archived",
        value: true,
        id: 0,
      },
    ]);
  });

  it("register state plus events equals a fresh register, for capable clients too", async function () {
    const id = await createChannel(u.othello, "Parity archive", [u.othello, u.hamlet]);
    const params = {
      fetch_event_types: ["subscription", "stream"],
      include_subscribers: true,
      ...ARCHIVED_CAPABLE,
    };
    await verifyRegisterParity(u.hamlet.client, params, async () => {
      expectSuccess(await u.othello.client.delete(`/streams/${id}`));
    });
    await verifyRegisterParity(u.hamlet.client, params, async () => {
      expectSuccess(await u.othello.client.patch(`/streams/${id}`, { is_archived: false }));
    });
  });

  describe("unarchiving", function () {
    it("restores the channel, posting a notice", async function () {
      const id = await createChannel(u.othello, "Phoenix", [u.othello, u.hamlet]);
      expectSuccess(await u.othello.client.delete(`/streams/${id}`));
      expectError(
        await u.hamlet.client.patch(`/streams/${id}`, { is_archived: false }),
        400,
        "You do not have permission to administer this channel.",
      );
      expect((await channelRow(server, id)).is_archived).to.equal(1);
      expectSuccess(await u.othello.client.patch(`/streams/${id}`, { is_archived: false }));
      expect((await channelRow(server, id)).is_archived).to.equal(0);
      expect((await channelMessages(server, id)).pop()!.content).to.equal(
        "Channel #**Phoenix** has been unarchived.",
      );
      expectSuccess(await u.hamlet.client.get(`/streams/${id}`));
    });

    it("gives clients without archived_channels the channel and their subscription back", async function () {
      const id = await createChannel(u.othello, "Lazarus", [u.othello, u.hamlet]);
      expectSuccess(await u.othello.client.delete(`/streams/${id}`));
      const params = { fetch_event_types: ["subscription", "stream"], include_subscribers: true };
      const subscriber = await verifyRegisterParity(u.hamlet.client, params, async () => {
        const other = await register(u.cordelia.client, params);
        expectSuccess(await u.othello.client.patch(`/streams/${id}`, { is_archived: false }));
        const seen = await pendingEvents(u.cordelia.client, other.queue_id);
        expect(seen.map((e) => `${e.type}/${e.op}`)).to.include("stream/create");
        expect(seen.map((e) => `${e.type}/${e.op}`)).not.to.include("subscription/add");
      });
      expect(subscriber.map((e) => `${e.type}/${e.op}`)).to.include.members([
        "stream/create",
        "subscription/add",
      ]);
    });

    it("refuses a private channel without subscribers", async function () {
      const id = await createChannel(u.othello, "Empty vault", [u.othello], { invite_only: true });
      expectSuccess(
        await u.othello.client.delete("/users/me/subscriptions", { subscriptions: ["Empty vault"] }),
      );
      expectSuccess(await u.iago.client.delete(`/streams/${id}`));
      expectError(
        await u.iago.client.patch(`/streams/${id}`, { is_archived: false }),
        400,
        "Channel is private and have no subscribers",
      );
    });
  });
});
