import { expect } from "chai";
import { ROLE } from "../../src/world/roles.js";
import { cast, createChannel, subscriberIds, systemGroupId, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("DELETE /users/me/subscriptions", function () {
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

  const unsubscribe = (user: TestUser, subscriptions: string[], principals?: Array<number | string>) =>
    user.client.delete("/users/me/subscriptions", { subscriptions, ...(principals ? { principals } : {}) });

  it("unsubscribes the caller and reports removed and not_removed names", async function () {
    const id = await createChannel(u.hamlet, "Leave", [u.hamlet, u.othello]);
    await createChannel(u.hamlet, "Never joined", [u.othello]);
    const body = expectSuccess(await unsubscribe(u.hamlet, [" Leave ", "Never joined"]));
    expect(body.removed).to.deep.equal(["Leave"]);
    expect(body.not_removed).to.deep.equal(["Never joined"]);
    expect(await subscriberIds(server, id)).to.deep.equal([u.othello.id]);
    // The past subscription is remembered, settings included.
    const row = await server.app.knex("subscriptions").where({ user_id: u.hamlet.id, stream_id: id }).first();
    expect(row.active).to.equal(0);
  });

  it("refuses channels that do not exist, naming them, and changes nothing", async function () {
    const id = await createChannel(u.hamlet, "Real", [u.hamlet]);
    expectError(
      await unsubscribe(u.hamlet, ["Real", "Fake", "Faker"]),
      400,
      "Channel(s) (Fake, Faker) do not exist",
    );
    expect(await subscriberIds(server, id)).to.deep.equal([u.hamlet.id]);
    expectError(await unsubscribe(u.hamlet, [""]), 400, "Channel name can't be empty.");
  });

  it("lets a user remove its own bot anywhere it can see", async function () {
    const bot = await server.factory.user(realm.id, "hamletbot", ROLE.MEMBER, {
      isBot: true,
      botOwnerId: u.hamlet.id,
    });
    const id = await createChannel(u.othello, "Bots", [u.othello, bot]);
    expectSuccess(await unsubscribe(u.hamlet, ["Bots"], [bot.id]));
    expect(await subscriberIds(server, id)).to.deep.equal([u.othello.id]);
  });

  it("lets only those allowed unsubscribe others", async function () {
    const id = await createChannel(u.othello, "Court", [u.othello, u.cordelia, u.prospero]);
    // Members may not (can_remove_subscribers_group defaults to administrators)...
    expectError(await unsubscribe(u.hamlet, ["Court"], [u.cordelia.id]), 400, "Insufficient permission");
    expectError(await unsubscribe(u.polonius, ["Court"], [u.cordelia.id]), 400, "Insufficient permission");
    expect(await subscriberIds(server, id)).to.include(u.cordelia.id);
    // ...administrators may, and so may the channel's administrators.
    expectSuccess(await unsubscribe(u.iago, ["Court"], [u.cordelia.id]));
    expectSuccess(await unsubscribe(u.othello, ["Court"], [u.prospero.email]));
    expect(await subscriberIds(server, id)).to.deep.equal([u.othello.id]);
  });

  it("lets members of can_remove_subscribers_group unsubscribe others where they see the channel", async function () {
    const moderators = await systemGroupId(server, realm, "role:moderators");
    const open = await createChannel(u.othello, "Moderated", [u.othello, u.cordelia], {
      can_remove_subscribers_group: moderators,
    });
    const closed = await createChannel(u.othello, "Closed", [u.othello, u.cordelia], {
      invite_only: true,
      can_remove_subscribers_group: moderators,
    });
    expectError(await unsubscribe(u.prospero, ["Closed"], [u.cordelia.id]), 400, "Insufficient permission");
    expect(await subscriberIds(server, closed)).to.include(u.cordelia.id);
    expectSuccess(await unsubscribe(u.prospero, ["Moderated"], [u.cordelia.id]));
    expect(await subscriberIds(server, open)).to.deep.equal([u.othello.id]);
  });

  it("lets administrators unsubscribe others from private channels they are not in", async function () {
    const id = await createChannel(u.othello, "Hidden", [u.othello, u.cordelia], { invite_only: true });
    expectSuccess(await unsubscribe(u.iago, ["Hidden"], [u.cordelia.id]));
    expect(await subscriberIds(server, id)).to.deep.equal([u.othello.id]);
  });

  it("refuses missing and deactivated principals", async function () {
    await createChannel(u.othello, "Principals", [u.othello]);
    expectError(await unsubscribe(u.iago, ["Principals"], [424242]), 400, "No such user");
  });

  it("tells a user who loses sight of a private channel that it is gone", async function () {
    const id = await createChannel(u.othello, "Vault", [u.othello, u.hamlet], { invite_only: true });
    const queue = await register(u.hamlet.client, { event_types: ["subscription", "stream"] });
    expectSuccess(await unsubscribe(u.hamlet, ["Vault"]));
    const events = await pendingEvents(u.hamlet.client, queue.queue_id);
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal(["subscription/remove", "stream/delete"]);
    expect(events[0]!.subscriptions).to.deep.equal([{ name: "Vault", stream_id: id }]);
    expect(events[1]!.stream_ids).to.deep.equal([id]);
  });
});

describe("POST /users/me/subscriptions/properties", function () {
  let server: TestServer;
  let u: Cast;
  let id: number;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    id = await createChannel(u.hamlet, "Props", [u.hamlet]);
  });
  after(async function () {
    await server.close();
  });

  const update = (user: TestUser, data: object[]) =>
    user.client.post("/users/me/subscriptions/properties", { subscription_data: data });
  const mine = async () =>
    (
      expectSuccess(await u.hamlet.client.get("/users/me/subscriptions")).subscriptions as Array<
        Record<string, unknown>
      >
    )[0]!;

  it("changes colour, pinning, muting and notification settings, with null meaning inherit", async function () {
    expectSuccess(
      await update(u.hamlet, [
        { stream_id: id, property: "color", value: "#abcdef" },
        { stream_id: id, property: "pin_to_top", value: true },
        { stream_id: id, property: "is_muted", value: true },
        { stream_id: id, property: "desktop_notifications", value: false },
        { stream_id: id, property: "push_notifications", value: true },
      ]),
    );
    expect(await mine()).to.include({
      color: "#abcdef",
      pin_to_top: true,
      is_muted: true,
      in_home_view: false,
      desktop_notifications: false,
      push_notifications: true,
      audible_notifications: null,
    });
    expectSuccess(
      await update(u.hamlet, [
        { stream_id: id, property: "in_home_view", value: true },
        { stream_id: id, property: "desktop_notifications", value: null },
      ]),
    );
    expect(await mine()).to.include({ is_muted: false, in_home_view: true, desktop_notifications: null });
  });

  it("sends the legacy in_home_view event before is_muted, to the user alone", async function () {
    const queue = await register(u.hamlet.client, { event_types: ["subscription"] });
    const other = await register(u.othello.client, { event_types: ["subscription"] });
    expectSuccess(await update(u.hamlet, [{ stream_id: id, property: "is_muted", value: true }]));
    const events = await pendingEvents(u.hamlet.client, queue.queue_id);
    expect(events.map((e): unknown[] => [e.property, e.value])).to.deep.equal([
      ["in_home_view", false],
      ["is_muted", true],
    ]);
    expect(await pendingEvents(u.othello.client, other.queue_id)).to.deep.equal([]);
  });

  it("validates every change before applying any", async function () {
    const before = await mine();
    expectError(
      await update(u.hamlet, [
        { stream_id: id, property: "pin_to_top", value: false },
        { stream_id: id, property: "sparkle", value: true },
      ]),
      400,
      "Unknown subscription property: sparkle",
    );
    expectError(
      await update(u.hamlet, [{ stream_id: id, property: "pin_to_top", value: "yes" }]),
      400,
      "pin_to_top is not a boolean",
    );
    expectError(
      await update(u.hamlet, [{ stream_id: id, property: "is_muted", value: null }]),
      400,
      "is_muted is not a boolean",
    );
    expectError(
      await update(u.hamlet, [{ stream_id: id, property: "color", value: "blue" }]),
      400,
      "color is not a valid hex color code",
    );
    expect(await mine()).to.deep.equal(before);
  });

  it("refuses channels the user is not subscribed to, or cannot see", async function () {
    const other = await createChannel(u.othello, "Elsewhere", [u.othello]);
    const hidden = await createChannel(u.othello, "Hidden props", [u.othello], { invite_only: true });
    expectError(
      await update(u.hamlet, [{ stream_id: other, property: "pin_to_top", value: true }]),
      400,
      `Not subscribed to channel ID ${other}`,
    );
    expectError(
      await update(u.hamlet, [{ stream_id: hidden, property: "pin_to_top", value: true }]),
      400,
      "Invalid channel ID",
    );
    expectError(
      await update(u.hamlet, [{ stream_id: 999999, property: "pin_to_top", value: true }]),
      400,
      "Invalid channel ID",
    );
  });
});
