import { expect } from "chai";
import { cast, createChannel, subscribe, type Cast } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type Dict = Record<string, unknown> & { name: string; stream_id: number; subscribers?: number[] };

// GET /users/me/subscriptions encodes each user's list once per channel and realm
// snapshot (api/subscriptions-json.ts). Each test reads the list first, so it is
// stored, then changes it: the next read must show the change.
describe("GET /users/me/subscriptions: lists encoded once", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
  });
  after(async function () {
    await server.close();
  });

  const list = async (user: TestUser, include = false) =>
    expectSuccess(await user.client.get("/users/me/subscriptions", { include_subscribers: include }))
      .subscriptions as Dict[];
  const named = async (user: TestUser, name: string, include = false) =>
    (await list(user, include)).find((d) => d.name === name);

  it("shows a joined channel, a changed color and a rename at once", async function () {
    await createChannel(u.hamlet, "Elsinore walls", [u.hamlet]);
    expect(await named(u.othello, "Elsinore walls")).to.equal(undefined);
    await subscribe(u.othello, ["Elsinore walls"]);
    const joined = await named(u.othello, "Elsinore walls");
    expect(joined).to.not.equal(undefined);

    expectSuccess(
      await u.othello.client.post("/users/me/subscriptions/properties", {
        subscription_data: [{ stream_id: joined!.stream_id, property: "color", value: "#123456" }],
      }),
    );
    expect((await named(u.othello, "Elsinore walls"))!.color).to.equal("#123456");

    expectSuccess(await u.hamlet.client.patch(`/streams/${joined!.stream_id}`, { new_name: "Battlements" }));
    expect((await list(u.othello)).map((d) => d.name)).to.include("Battlements");
  });

  it("keeps each user's list and each include_subscribers value apart", async function () {
    const id = await createChannel(u.prospero, "Arras", [u.prospero]);
    expect((await named(u.prospero, "Arras"))!.subscribers).to.equal(undefined);
    expect((await named(u.prospero, "Arras", true))!.subscribers).to.deep.equal([u.prospero.id]);
    expect(await named(u.hamlet, "Arras")).to.equal(undefined);

    await subscribe(u.prospero, ["Arras"], [u.hamlet]);
    expect((await named(u.prospero, "Arras", true))!.subscribers).to.have.members([
      u.prospero.id,
      u.hamlet.id,
    ]);
    expect((await named(u.hamlet, "Arras"))!.stream_id).to.equal(id);
    expect((await named(u.prospero, "Arras"))!.subscribers).to.equal(undefined);
  });

  it("drops an unsubscribed channel at once", async function () {
    await createChannel(u.hamlet, "Graveyard", [u.hamlet, u.othello]);
    expect(await named(u.othello, "Graveyard")).to.not.equal(undefined);
    expectSuccess(
      await u.othello.client.delete("/users/me/subscriptions", {
        subscriptions: JSON.stringify(["Graveyard"]),
      }),
    );
    expect(await named(u.othello, "Graveyard")).to.equal(undefined);
  });
});
