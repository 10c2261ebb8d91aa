import { expect } from "chai";
import { expectSuccess } from "../helpers/client.js";
import { cast, createChannel, subscribe } from "../helpers/channels.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Changes made by the users and user-groups features that change what channels (and
 * subscribers) people can see: the right events reach the right users.
 */
describe("channel visibility after role, membership and activation changes", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  const fresh = async (): Promise<TestRealm> => server.factory.realm();
  const params = { include_subscribers: "true" };

  it("a guest made a member learns of the public channels it can now see", async function () {
    const realm = await fresh();
    const { iago, hamlet, polonius, desdemona } = cast(realm);
    const channelId = await createChannel(iago, "lobby", [iago, hamlet]);
    const before = await register(polonius.client, params);
    expect((before.streams as Array<{ stream_id: number }>).map((s) => s.stream_id)).not.to.include(
      channelId,
    );
    const events = await verifyRegisterParity(polonius.client, params, async () => {
      expectSuccess(await desdemona.client.patch(`/users/${polonius.id}`, { role: 400 }));
    });
    const create = events.find((e) => e.type === "stream" && e.op === "create");
    expect(create?.streams.map((s: { stream_id: number }) => s.stream_id)).to.include(channelId);
  });

  it("a member made a guest is told the unsubscribed public channels are gone", async function () {
    const realm = await fresh();
    const { iago, hamlet, othello, desdemona } = cast(realm);
    const channelId = await createChannel(iago, "lobby", [iago, hamlet]);
    const events = await verifyRegisterParity(othello.client, params, async () => {
      expectSuccess(await desdemona.client.patch(`/users/${othello.id}`, { role: 600 }));
    });
    const gone = events.find((e) => e.type === "stream" && e.op === "delete");
    expect(gone?.stream_ids).to.include(channelId);
  });

  it("joining a group that may add subscribers to a private channel reveals it", async function () {
    const realm = await fresh();
    const { iago, hamlet, cordelia, desdemona } = cast(realm);
    const group = expectSuccess(
      await desdemona.client.post("/user_groups/create", {
        name: "wardens",
        description: "",
        members: [desdemona.id],
      }),
    ).group_id as number;
    const channelId = await createChannel(iago, "vault", [iago, hamlet], {
      invite_only: true,
      can_add_subscribers_group: group,
    });
    const before = await register(cordelia.client, params);
    expect((before.streams as Array<{ stream_id: number }>).map((s) => s.stream_id)).not.to.include(
      channelId,
    );
    await verifyRegisterParity(cordelia.client, params, async () => {
      expectSuccess(await desdemona.client.post(`/user_groups/${group}/members`, { add: [cordelia.id] }));
    });
    const after = await register(cordelia.client, params);
    expect((after.streams as Array<{ stream_id: number }>).map((s) => s.stream_id)).to.include(channelId);
    // Leaving again hides it.
    const events = await verifyRegisterParity(cordelia.client, params, async () => {
      expectSuccess(await desdemona.client.post(`/user_groups/${group}/members`, { delete: [cordelia.id] }));
    });
    expect(events.some((e) => e.type === "stream" && e.op === "delete")).to.equal(true);
  });

  it("deactivating and reactivating a subscriber updates subscriber lists through peer events", async function () {
    const realm = await fresh();
    const { iago, hamlet, othello, cordelia } = cast(realm);
    await subscribe(hamlet, ["lobby"]);
    await subscribe(iago, ["lobby"], [othello, cordelia]);
    const events = await verifyRegisterParity(hamlet.client, params, async () => {
      expectSuccess(await iago.client.delete(`/users/${cordelia.id}`));
      expectSuccess(await iago.client.post(`/users/${cordelia.id}/reactivate`));
    });
    const peers: unknown[] = events
      .filter((e) => e.type === "subscription")
      .map((e) => [e.op, e.user_ids] as unknown);
    expect(peers).to.deep.equal([
      ["peer_remove", [cordelia.id]],
      ["peer_add", [cordelia.id]],
    ]);
  });

  it("a private channel's subscribers are not revealed to outsiders on deactivation", async function () {
    const realm = await fresh();
    const { iago, hamlet, othello } = cast(realm);
    await createChannel(hamlet, "secret", [hamlet, othello], { invite_only: true });
    const { cordelia } = cast(realm);
    const queue = await register(cordelia.client, { event_types: ["subscription"] });
    expectSuccess(await iago.client.delete(`/users/${othello.id}`));
    expect(await pendingEvents(cordelia.client, queue.queue_id as string)).to.deep.equal([]);
  });
});
