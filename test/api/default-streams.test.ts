import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import { cast, createChannel, subscriberIds, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("default channels", function () {
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

  const defaults = async () =>
    (await register(u.hamlet.client, { fetch_event_types: ["default_streams"] }))
      .realm_default_streams as number[];

  it("lets administrators add and remove default channels, and nobody else", async function () {
    const id = await createChannel(u.othello, "Lobby", [u.othello]);
    expectError(
      await u.othello.client.post("/default_streams", { stream_id: id }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect(await defaults()).not.to.include(id);
    const events = await verifyRegisterParity(
      u.hamlet.client,
      { fetch_event_types: ["default_streams"] },
      async () => {
        expectSuccess(await u.iago.client.post("/default_streams", { stream_id: id }));
      },
    );
    expect(events).to.deep.equal([{ type: "default_streams", default_streams: [id], id: 0 }]);
    // Idempotent: no second event.
    const again = await verifyRegisterParity(
      u.hamlet.client,
      { fetch_event_types: ["default_streams"] },
      async () => {
        expectSuccess(await u.iago.client.post("/default_streams", { stream_id: id }));
      },
    );
    expect(again).to.deep.equal([]);
    expectError(
      await u.othello.client.delete("/default_streams", { stream_id: id }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expect(await defaults()).to.include(id);
    await verifyRegisterParity(u.hamlet.client, { fetch_event_types: ["default_streams"] }, async () => {
      expectSuccess(await u.iago.client.delete("/default_streams", { stream_id: id }));
    });
    expect(await defaults()).not.to.include(id);
  });

  it("refuses private channels and channels the administrator cannot see", async function () {
    const id = await createChannel(u.othello, "Backroom", [u.othello, u.iago], { invite_only: true });
    expectError(
      await u.iago.client.post("/default_streams", { stream_id: id }),
      400,
      "Private channels cannot be made default.",
    );
    const hidden = await createChannel(u.othello, "Cellar", [u.othello], { invite_only: true });
    expectError(
      await u.iago.client.post("/default_streams", { stream_id: hidden }),
      400,
      "Invalid channel ID",
    );
    expectError(
      await u.iago.client.post("/default_streams", { stream_id: 999999 }),
      400,
      "Invalid channel ID",
    );
  });

  it("does not tell guests", async function () {
    const id = await createChannel(u.othello, "Foyer", [u.othello]);
    const guest = await register(u.polonius.client, { event_types: ["default_streams"] });
    const member = await register(u.cordelia.client, { event_types: ["default_streams"] });
    expectSuccess(await u.iago.client.post("/default_streams", { stream_id: id }));
    expect(await pendingEvents(u.polonius.client, guest.queue_id)).to.deep.equal([]);
    expect(await pendingEvents(u.cordelia.client, member.queue_id)).to.have.lengthOf(1);
    expectSuccess(await u.iago.client.delete("/default_streams", { stream_id: id }));
  });

  it("subscribes new people (not bots) to the default channels, telling the others", async function () {
    const own = await server.factory.realm();
    const { iago, hamlet, othello } = cast(own);
    const lobby = await createChannel(othello, "Welcome", [othello]);
    const archived = await createChannel(othello, "Old welcome", [othello]);
    expectSuccess(await iago.client.post("/default_streams", { stream_id: lobby }));
    expectSuccess(await iago.client.post("/default_streams", { stream_id: archived }));
    expectSuccess(await othello.client.delete(`/streams/${archived}`));
    const watcher = await register(hamlet.client, { event_types: ["subscription"] });
    const newcomer = await server.factory.user(own.id, "horatio", ROLE.MEMBER);
    const guest = await server.factory.user(own.id, "rosencrantz", ROLE.GUEST);
    const bot = await server.factory.user(own.id, "botty", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: hamlet.id,
    });
    expect(await subscriberIds(server, lobby)).to.deep.equal(
      [othello.id, newcomer.id, guest.id].sort((a, b) => a - b),
    );
    expect(await subscriberIds(server, archived)).to.deep.equal([othello.id]);
    expect(await subscriberIds(server, lobby)).not.to.include(bot.id);
    const events = await pendingEvents(hamlet.client, watcher.queue_id);
    expect(events.map((e): unknown[] => [e.op, e.user_ids])).to.deep.equal([
      ["peer_add", [newcomer.id]],
      ["peer_add", [guest.id]],
    ]);
    const subs = expectSuccess(await newcomer.client.get("/users/me/subscriptions")).subscriptions as Array<{
      name: string;
    }>;
    expect(subs.map((s) => s.name)).to.deep.equal(["Welcome"]);
  });
});
