import { expect } from "chai";
import sharp from "sharp";
import { cast, createChannel, setRealmFields, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { getFile, postUpload, upload } from "../helpers/uploads.js";

const pngOf = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();

describe("avatars: POST and DELETE /users/me/avatar", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer({ max_avatar_file_size_mib: 1 });
    realm = await server.factory.realm();
    u = cast(realm);
  });
  after(async function () {
    await server.close();
  });

  const me = async (user: TestUser): Promise<Record<string, unknown>> =>
    expectSuccess(await user.client.get("/users/me")) as Record<string, unknown>;
  const setAvatar = (user: TestUser, bytes: Buffer) =>
    postUpload(user, "me.png", bytes, { path: "/users/me/avatar" });

  it("crops the image to a 100x100 PNG, bumps avatar_version and tells everyone (register parity)", async function () {
    const before = await me(u.hamlet);
    const others = await register(u.othello.client);
    let url = "";
    await verifyRegisterParity(u.hamlet.client, {}, async () => {
      url = expectSuccess(await setAvatar(u.hamlet, await pngOf(300, 120))).avatar_url as string;
    });
    expect(url).to.match(/^\/user_avatars\/\d+\/[0-9a-f]{40}\.png\?version=\d+$/);
    const after = await me(u.hamlet);
    expect(after.avatar_version).to.equal((before.avatar_version as number) + 1);
    expect(after.avatar_url).to.equal(url);
    const file = await getFile(server.url, url, null);
    expect(file.headers.get("content-type")).to.equal("image/png");
    const meta = await sharp(file.bytes).metadata();
    expect([meta.width, meta.height]).to.deep.equal([100, 100]);
    const medium = await getFile(server.url, url.replace(".png", "-medium.png"), null);
    expect((await sharp(medium.bytes).metadata()).width).to.equal(500);
    const events = await pendingEvents(u.othello.client, others.queue_id as string);
    expect(events.find((e) => e.type === "realm_user")?.person).to.include({
      user_id: u.hamlet.id,
      avatar_url: url,
      avatar_version: after.avatar_version,
    });
  });

  it("refuses what is not an image, a file over the limit, and none; nothing changes", async function () {
    const before = await me(u.othello);
    expectError(
      await setAvatar(u.othello, Buffer.from("not an image")),
      400,
      "Could not decode image; did you upload an image file?",
      "BAD_IMAGE",
    );
    expectError(
      await setAvatar(u.othello, Buffer.alloc(1024 * 1024 + 1)),
      413,
      "Uploaded file is larger than the allowed limit of 1 MiB",
      "PAYLOAD_TOO_LARGE",
    );
    expectError(
      await u.othello.client.post("/users/me/avatar", {}, { encoding: "multipart" }),
      400,
      "You must upload exactly one avatar.",
    );
    expect(await me(u.othello)).to.deep.equal(before);
  });

  it("refuses members when avatar changes are disabled, nothing changed; admins still may", async function () {
    await setRealmFields(server, realm, { avatar_changes_disabled: true });
    server.app.realms.invalidate(realm.id);
    const before = await me(u.cordelia);
    expectError(
      await setAvatar(u.cordelia, await pngOf(10, 10)),
      400,
      "Avatar changes are disabled in this organization.",
    );
    expectError(
      await u.cordelia.client.delete("/users/me/avatar"),
      400,
      "Avatar changes are disabled in this organization.",
    );
    expect(await me(u.cordelia)).to.deep.equal(before);
    expectSuccess(await setAvatar(u.iago, await pngOf(10, 10)));
    await setRealmFields(server, realm, { avatar_changes_disabled: false });
    server.app.realms.invalidate(realm.id);
  });

  it("DELETE goes back to the gravatar with a new version; the old file is gone", async function () {
    const url = expectSuccess(await setAvatar(u.prospero, await pngOf(50, 50))).avatar_url as string;
    const version = (await me(u.prospero)).avatar_version as number;
    const body = expectSuccess(await u.prospero.client.delete("/users/me/avatar"));
    expect(body.avatar_url).to.match(
      /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]+\?d=identicon&version=/,
    );
    expect((await me(u.prospero)).avatar_version).to.equal(version + 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await getFile(server.url, url, null)).status).to.equal(404);
  });
});

describe("thumbnails of uploaded images", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  it("are made off the request path; messages showing the placeholder are re-rendered (rendering_only)", async function () {
    const queue = await register(u.othello.client);
    // Hold the job queue so the message is sent before its thumbnail exists.
    let release = () => {};
    server.app.jobs.enqueue("gate", () => new Promise<void>((resolve) => (release = resolve)));
    const url = await upload(u.hamlet, "photo.png", await pngOf(1600, 900));
    const id = await sendToChannel(u.hamlet, "Denmark", "pics", `[photo.png](${url})`);
    const sent = expectSuccess(await u.othello.client.get(`/messages/${id}`)).message as { content: string };
    expect(sent.content).to.contain('class="image-loading-placeholder"');
    release();
    await server.app.jobs.idle();
    const message = expectSuccess(await u.othello.client.get(`/messages/${id}`)).message as {
      content: string;
    };
    expect(message.content).to.contain('<div class="message_inline_image">');
    const src = /<img [^>]*src="([^"]+)"/.exec(message.content)![1]!;
    expect(src).to.match(/^\/user_uploads\/thumbnail\/.+\/840x560\.webp$/);
    expect(message.content).to.contain('data-original-dimensions="1600x900"');
    const thumb = await getFile(server.url, src, u.othello);
    expect(thumb.headers.get("content-type")).to.equal("image/webp");
    const meta = await sharp(thumb.bytes).metadata();
    expect([meta.width, meta.height]).to.deep.equal([840, 473]);
    // The thumbnail follows the file's access rule.
    expect((await getFile(server.url, src, u.polonius)).status).to.equal(403);
    const events = await pendingEvents(u.othello.client, queue.queue_id as string);
    const rerender = events.find((e) => e.type === "update_message" && e.rendering_only === true);
    expect(rerender?.rendered_content).to.equal(message.content);
  });
});
