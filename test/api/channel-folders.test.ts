import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("channel folders", function () {
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

  const create = (user: TestUser, name: string, description = "") =>
    user.client.post("/channel_folders/create", { name, description });
  const folders = async (user: TestUser, includeArchived = false) =>
    expectSuccess(await user.client.get("/channel_folders", { include_archived: includeArchived }))
      .channel_folders as Array<Record<string, unknown>>;
  const folderCount = async () =>
    (await server.app.knex("channel_folders").where({ realm_id: realm.id })).length;

  it("lets administrators create folders and nobody else", async function () {
    const before = await folderCount();
    for (const user of [u.prospero, u.hamlet, u.polonius]) {
      expectError(
        await create(user, "Mine"),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
    }
    expect(await folderCount()).to.equal(before);
    const body = expectSuccess(await create(u.iago, "  Frontend ", "Channels for **frontend**"));
    const id = body.channel_folder_id as number;
    const folder = (await folders(u.hamlet)).find((f) => f.id === id)!;
    expect(folder).to.deep.include({
      id,
      name: "Frontend",
      description: "Channels for **frontend**",
      rendered_description: "<p>Channels for <strong>frontend</strong></p>",
      creator_id: u.iago.id,
      is_archived: false,
    });
    expect(folder.date_created).to.be.a("number");
    expect(folder.order).to.be.a("number");
  });

  it("validates names and descriptions", async function () {
    await create(u.iago, "Backend");
    expectError(await create(u.iago, "  "), 400, "Channel folder name can't be empty.");
    expectError(await create(u.iago, "backend"), 400, "Channel folder name already in use");
    expectError(await create(u.iago, "n".repeat(61)), 400, "name is too long (limit: 60 characters)");
    expectError(await create(u.iago, "bad\u0000name"), 400, "name contains NULL (0x00) characters.");
    expectError(
      await create(u.iago, "tab\tname"),
      400,
      "Invalid character in channel folder name, at position 4.",
    );
    expectError(
      await create(u.iago, "Verbose", "d".repeat(1025)),
      400,
      "description is too long (limit: 1024 characters)",
    );
    expectError(
      await u.iago.client.post("/channel_folders/create", { name: "No description" }),
      400,
      "Missing 'description' argument",
      "REQUEST_VARIABLE_MISSING",
    );
  });

  it("updates name, description and archived state; administrators only", async function () {
    const id = expectSuccess(await create(u.iago, "Editable")).channel_folder_id as number;
    expectError(
      await u.hamlet.client.patch(`/channel_folders/${id}`, { name: "Hacked" }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    expectError(
      await u.iago.client.patch("/channel_folders/999999", { name: "Nope" }),
      400,
      "Invalid channel folder ID",
    );
    expectError(
      await u.iago.client.patch(`/channel_folders/${id}`, { name: "" }),
      400,
      "Channel folder name can't be empty.",
    );
    expectError(
      await u.iago.client.patch(`/channel_folders/${id}`, { name: "BACKEND" }),
      400,
      "Channel folder name already in use",
    );
    expectSuccess(
      await u.iago.client.patch(`/channel_folders/${id}`, { name: "Edited", description: "now *described*" }),
    );
    let folder = (await folders(u.hamlet)).find((f) => f.id === id)!;
    expect(folder).to.include({
      name: "Edited",
      description: "now *described*",
      rendered_description: "<p>now <em>described</em></p>",
    });
    expectSuccess(await u.desdemona.client.patch(`/channel_folders/${id}`, { is_archived: true }));
    expect((await folders(u.hamlet)).map((f) => f.id)).not.to.include(id);
    folder = (await folders(u.hamlet, true)).find((f) => f.id === id)!;
    expect(folder.is_archived).to.equal(true);
    expectSuccess(await u.iago.client.patch(`/channel_folders/${id}`, { is_archived: false }));
    expect((await folders(u.hamlet)).map((f) => f.id)).to.include(id);
  });

  it("refuses to archive a folder that still holds channels", async function () {
    const id = expectSuccess(await create(u.iago, "Occupied")).channel_folder_id as number;
    const channel = await createChannel(u.hamlet, "Tenant", [u.hamlet], { folder_id: id });
    expectError(
      await u.iago.client.patch(`/channel_folders/${id}`, { is_archived: true }),
      400,
      "You need to remove all the channels from this folder to archive it.",
    );
    expectSuccess(await u.hamlet.client.patch(`/streams/${channel}`, { folder_id: null }));
    expectSuccess(await u.iago.client.patch(`/channel_folders/${id}`, { is_archived: true }));
  });

  it("reorders folders, given every folder's ID", async function () {
    const own = await server.factory.realm();
    const { iago, hamlet } = cast(own);
    const ids: number[] = [];
    for (const name of ["A", "B", "C"])
      ids.push(expectSuccess(await create(iago, name)).channel_folder_id as number);
    const order = [ids[2]!, ids[0]!, ids[1]!];
    expectError(
      await iago.client.patch("/channel_folders", { order: [ids[0], ids[1]] }),
      400,
      "Invalid order mapping",
    );
    expectError(
      await iago.client.patch("/channel_folders", { order: [...ids, 999999] }),
      400,
      "Invalid order mapping",
    );
    expectError(
      await hamlet.client.patch("/channel_folders", { order }),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
    const events = await verifyRegisterParity(
      hamlet.client,
      { fetch_event_types: ["channel_folders"] },
      async () => {
        expectSuccess(await iago.client.patch("/channel_folders", { order }));
      },
    );
    expect(events).to.deep.equal([{ type: "channel_folder", op: "reorder", order, id: 0 }]);
    expect((await folders(hamlet)).map((f) => f.id)).to.deep.equal(order);
  });

  it("sends add and update events to everyone, guests included, matching a fresh register", async function () {
    const params = { fetch_event_types: ["channel_folders"] };
    const guestQueue = await register(u.polonius.client, { event_types: ["channel_folder"] });
    let id = 0;
    const added = await verifyRegisterParity(u.hamlet.client, params, async () => {
      id = expectSuccess(await create(u.iago, "Evented", "first")).channel_folder_id as number;
    });
    expect(added).to.have.lengthOf(1);
    expect(added[0]).to.deep.include({ type: "channel_folder", op: "add" });
    expect(added[0]!.channel_folder).to.include({ id, name: "Evented", description: "first" });
    const updated = await verifyRegisterParity(u.hamlet.client, params, async () => {
      expectSuccess(
        await u.iago.client.patch(`/channel_folders/${id}`, {
          name: "Evented 2",
          description: "second",
          is_archived: true,
        }),
      );
    });
    expect(updated.map((e): unknown => e.data)).to.deep.equal([
      { name: "Evented 2" },
      { description: "second", rendered_description: "<p>second</p>" },
      { is_archived: true },
    ]);
    expect(updated.every((e) => e.channel_folder_id === id)).to.equal(true);
    const guestEvents = await pendingEvents(u.polonius.client, guestQueue.queue_id);
    expect(guestEvents.map((e): unknown => e.op)).to.deep.equal(["add", "update", "update", "update"]);
    // Unchanged values are no-ops.
    const none = await verifyRegisterParity(u.hamlet.client, params, async () => {
      expectSuccess(
        await u.iago.client.patch(`/channel_folders/${id}`, { name: "Evented 2", is_archived: true }),
      );
    });
    expect(none).to.deep.equal([]);
  });
});
