import { expect } from "chai";
import { cast, createChannel, subscriberIds, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("PATCH /users/me/subscriptions", function () {
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

  const update = (user: TestUser, params: Params) => user.client.patch("/users/me/subscriptions", params);
  const names = (list: string[]) => list.map((name) => ({ name }));
  const channelNamed = (name: string) =>
    server.app.knex("streams").where({ realm_id: realm.id, name }).first();

  it("subscribes and unsubscribes in one request, answering both halves' fields", async function () {
    const stay = await createChannel(u.othello, "Stay", [u.othello, u.hamlet]);
    const leave = await createChannel(u.othello, "Leave", [u.othello, u.hamlet]);
    const join = await createChannel(u.othello, "Join", [u.othello]);
    await createChannel(u.othello, "Elsewhere", [u.othello]);
    const body = expectSuccess(
      await update(u.hamlet, {
        add: [
          { name: "Join", color: "#123456" },
          { name: "Stay" },
          { name: "Brand new", description: "Fresh" },
        ],
        delete: ["Leave", "Elsewhere"],
      }),
    );
    expect(body.subscribed).to.deep.equal({ [u.hamlet.id]: ["Join", "Brand new"] });
    expect(body.already_subscribed).to.deep.equal({ [u.hamlet.id]: ["Stay"] });
    expect(body.new_subscription_messages_sent).to.equal(true);
    expect(body.removed).to.deep.equal(["Leave"]);
    expect(body.not_removed).to.deep.equal(["Elsewhere"]);
    expect(await subscriberIds(server, join)).to.deep.equal(
      [u.othello.id, u.hamlet.id].sort((a, b) => a - b),
    );
    expect(await subscriberIds(server, leave)).to.deep.equal([u.othello.id]);
    expect(await subscriberIds(server, stay)).to.include(u.hamlet.id);
    const created = await channelNamed("Brand new");
    expect(created).to.include({ description: "Fresh" });
    const sub = await server.app
      .knex("subscriptions")
      .where({ user_id: u.hamlet.id, stream_id: join })
      .first();
    expect(sub.color).to.equal("#123456");
    // Only one half: the other's fields are there, empty.
    expect(expectSuccess(await update(u.hamlet, { delete: ["Join"] }))).to.deep.include({
      subscribed: {},
      already_subscribed: {},
      removed: ["Join"],
      not_removed: [],
    });
    expect(expectSuccess(await update(u.hamlet, { add: names(["Join"]) }))).to.deep.include({
      subscribed: { [u.hamlet.id]: ["Join"] },
      removed: [],
      not_removed: [],
    });
  });

  it("applies the halves in order, so a channel can be joined and left at once", async function () {
    const id = await createChannel(u.othello, "Revolving", [u.othello]);
    const body = expectSuccess(await update(u.hamlet, { add: names(["Revolving"]), delete: ["Revolving"] }));
    expect(body.subscribed).to.deep.equal({ [u.hamlet.id]: ["Revolving"] });
    expect(body.removed).to.deep.equal(["Revolving"]);
    expect(await subscriberIds(server, id)).to.deep.equal([u.othello.id]);
  });

  it("sends the events of the separate endpoints; state plus events equals a fresh register", async function () {
    await createChannel(u.othello, "Hall", [u.othello, u.hamlet]);
    await createChannel(u.othello, "Yard", [u.othello]);
    const watcher = await register(u.othello.client, { event_types: ["subscription"] });
    const state = { fetch_event_types: ["subscription", "stream"], include_subscribers: true };
    const events = await verifyRegisterParity(u.hamlet.client, state, async () => {
      expectSuccess(await update(u.hamlet, { add: names(["Yard"]), delete: ["Hall"] }));
    });
    expect(events.map((e) => `${e.type}/${e.op}`)).to.deep.equal(["subscription/add", "subscription/remove"]);
    const seen = await pendingEvents(u.othello.client, watcher.queue_id as string);
    expect(seen.map((e) => `${e.type}/${e.op}`)).to.deep.equal([
      "subscription/peer_add",
      "subscription/peer_remove",
    ]);
  });

  it("applies principals to both halves, with their permission rules", async function () {
    const id = await createChannel(u.iago, "Court", [u.iago, u.cordelia]);
    const other = await createChannel(u.iago, "Garden", [u.iago]);
    expectError(
      await update(u.hamlet, { add: names(["Garden"]), delete: ["Court"], principals: [u.cordelia.id] }),
      400,
      "Insufficient permission",
    );
    expect(await subscriberIds(server, other)).to.deep.equal([u.iago.id]);
    const body = expectSuccess(
      await update(u.iago, { add: names(["Garden"]), delete: ["Court"], principals: [u.cordelia.id] }),
    );
    expect(body.subscribed).to.deep.equal({ [u.cordelia.id]: ["Garden"] });
    expect(body.removed).to.deep.equal(["Court"]);
    expect(await subscriberIds(server, id)).to.deep.equal([u.iago.id]);
    expect(await subscriberIds(server, other)).to.include(u.cordelia.id);
  });

  it("refuses an empty request and bad halves, and undoes both halves when either fails", async function () {
    const keep = await createChannel(u.othello, "Keep", [u.othello, u.hamlet]);
    const secret = await createChannel(u.othello, "Hidden", [u.othello], { invite_only: true });
    const watcher = await register(u.hamlet.client);
    expectError(await update(u.hamlet, {}), 400, 'Nothing to do. Specify at least one of "add" or "delete".');
    expectError(
      await update(u.hamlet, { add: [], delete: [] }),
      400,
      'Nothing to do. Specify at least one of "add" or "delete".',
    );
    expectError(await update(u.hamlet, { add: "Keep" }), 400, "add is not valid JSON");
    expectError(
      await update(u.hamlet, { add: [{ name: "Keep", colour: "red" }] }),
      400,
      'Argument "colour" at add[0] is unexpected',
    );
    expectError(
      await update(u.hamlet, { add: [{ name: "New one", color: "red" }] }),
      400,
      "add.color is not a valid hex color code",
    );
    expectError(await update(u.hamlet, { delete: [1] }), 400, "delete[0] is not a string");
    // The add half worked, the delete half failed: nothing stays.
    expectError(
      await update(u.hamlet, { add: names(["Created then undone"]), delete: ["Keep", "No such channel"] }),
      400,
      "Channel(s) (No such channel) do not exist",
    );
    expect(await channelNamed("Created then undone")).to.equal(undefined);
    // The add half failed: the delete half is not applied.
    expectError(
      await update(u.hamlet, { add: names(["Hidden"]), delete: ["Keep"] }),
      400,
      "Unable to access channel (Hidden).",
    );
    expect(await subscriberIds(server, keep)).to.include(u.hamlet.id);
    expect(await subscriberIds(server, secret)).to.deep.equal([u.othello.id]);
    expect(await pendingEvents(u.hamlet.client, watcher.queue_id as string)).to.deep.equal([]);
    // authorization_errors_fatal=false reports the channel instead.
    const body = expectSuccess(
      await update(u.hamlet, { add: names(["Hidden"]), delete: ["Keep"], authorization_errors_fatal: false }),
    );
    expect(body).to.deep.include({ subscribed: {}, unauthorized: ["Hidden"], removed: ["Keep"] });
  });

  it("lets guests leave channels, but not join them this way", async function () {
    const id = await createChannel(u.othello, "Guests", [u.othello, u.polonius]);
    expectError(await update(u.polonius, { add: names(["Guests"]) }), 400, "Not allowed for guest users");
    expect(expectSuccess(await update(u.polonius, { delete: ["Guests"] })).removed).to.deep.equal(["Guests"]);
    expect(await subscriberIds(server, id)).to.deep.equal([u.othello.id]);
  });
});
