import { expect } from "chai";
import sharp from "sharp";
import { cast, createChannel, setRealmFields, systemGroupId, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { getFile, postUpload } from "../helpers/uploads.js";

const pngOf = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 20, g: 200, b: 30 } } })
    .png()
    .toBuffer();

async function animatedGif(): Promise<Buffer> {
  const frame = (r: number) =>
    sharp({ create: { width: 100, height: 80, channels: 3, background: { r, g: 0, b: 0 } } })
      .png()
      .toBuffer();
  return sharp([await frame(255), await frame(0)], { join: { animated: true } })
    .gif()
    .toBuffer();
}

type EmojiInfo = {
  id: string;
  name: string;
  source_url: string;
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
};

describe("custom emoji: /realm/emoji", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello, u.iago]);
  });
  after(async function () {
    await server.close();
  });

  const addEmoji = (user: TestUser, name: string, bytes: Buffer, fileName = "emoji.png") =>
    postUpload(user, fileName, bytes, { path: `/realm/emoji/${encodeURIComponent(name)}` });
  const listEmoji = async (user: TestUser = u.hamlet) =>
    expectSuccess(await user.client.get("/realm/emoji")).emoji as Record<string, EmojiInfo>;
  const byName = async (name: string) =>
    Object.values(await listEmoji()).find((e) => e.name === name && !e.deactivated);

  it("uploads an emoji cropped to 64x64, lists it and serves it; legacy clients get the whole set (register parity)", async function () {
    const legacy = await register(u.othello.client);
    await verifyRegisterParity(u.hamlet.client, {}, async () => {
      expectSuccess(await addEmoji(u.hamlet, "green_tick", await pngOf(200, 100)));
    });
    const emoji = (await byName("green_tick"))!;
    expect(emoji).to.deep.include({ name: "green_tick", deactivated: false, author_id: u.hamlet.id });
    expect(emoji.still_url).to.equal(null);
    expect(emoji.source_url).to.match(
      new RegExp(`^/user_avatars/${realm.id}/emoji/images/[0-9a-f]{32}\\.png$`),
    );
    const file = await getFile(server.url, emoji.source_url, null);
    expect(file.headers.get("content-type")).to.equal("image/png");
    const meta = await sharp(file.bytes).metadata();
    expect([meta.width, meta.height]).to.deep.equal([64, 64]);
    const events = await pendingEvents(u.othello.client, legacy.queue_id as string);
    const event = events.find((e) => e.type === "realm_emoji")!;
    expect(event.op).to.equal("update");
    expect(event.realm_emoji[emoji.id]).to.deep.equal(emoji);
    const fresh = await register(u.othello.client, { fetch_event_types: JSON.stringify(["realm_emoji"]) });
    expect(fresh.realm_emoji).to.deep.equal(await listEmoji());
  });

  it("sends add with individual_emoji_changes (register parity); an animated emoji gets a still", async function () {
    const capabilities = { client_capabilities: JSON.stringify({ individual_emoji_changes: true }) };
    const events = await verifyRegisterParity(u.hamlet.client, capabilities, async () => {
      expectSuccess(await addEmoji(u.hamlet, "party parrot", await animatedGif(), "parrot.gif"));
    });
    // Spaces become underscores, as in Zulip.
    const emoji = (await byName("party_parrot"))!;
    expect(events.filter((e) => e.type === "realm_emoji")).to.deep.equal([
      { type: "realm_emoji", op: "add", emoji, id: events.find((e) => e.type === "realm_emoji")!.id },
    ]);
    expect(emoji.source_url).to.match(/\.gif$/);
    expect(emoji.still_url).to.match(
      new RegExp(`^/user_avatars/${realm.id}/emoji/images/still/[0-9a-f]{32}\\.png$`),
    );
    const animated = await sharp((await getFile(server.url, emoji.source_url, null)).bytes).metadata();
    expect([animated.format, animated.pages, animated.width]).to.deep.equal(["gif", 2, 64]);
    const still = await getFile(server.url, emoji.still_url!, null);
    expect(still.headers.get("content-type")).to.equal("image/png");
    expect((await sharp(still.bytes).metadata()).pages ?? 1).to.equal(1);
  });

  it("refuses bad names, a taken name, no file, a non-image, and built-in names for members; nothing changes", async function () {
    const before = await listEmoji();
    const png = await pngOf(10, 10);
    const only = "Emoji names must contain only lowercase alphanumeric characters, underscore, and hyphen.";
    expectError(await addEmoji(u.hamlet, "Big", png), 400, only);
    expectError(await addEmoji(u.hamlet, "a.b", png), 400, only);
    expectError(
      await addEmoji(u.hamlet, "tick_", png),
      400,
      "Emoji names must end with either a letter or digit.",
    );
    expectError(
      await addEmoji(u.hamlet, "_", png),
      400,
      "Emoji names must end with either a letter or digit.",
    );
    expectError(
      await addEmoji(u.hamlet, "green_tick", png),
      400,
      "A custom emoji with this name already exists.",
    );
    expectError(
      await u.hamlet.client.post("/realm/emoji/no_file", {}, { encoding: "multipart" }),
      400,
      "You must upload exactly one file.",
    );
    expectError(
      await addEmoji(u.hamlet, "text", Buffer.from("plain text, not an image")),
      400,
      "Invalid image format",
      "BAD_IMAGE",
    );
    expectError(
      await addEmoji(u.hamlet, "smile", png),
      400,
      "Only administrators can override built-in emoji.",
    );
    expectError(
      await addEmoji(u.hamlet, "big", Buffer.alloc(5 * 1024 * 1024 + 1)),
      400,
      "Uploaded file is larger than the allowed limit of 5 MiB",
    );
    expect(await listEmoji()).to.deep.equal(before);
    expectSuccess(await addEmoji(u.iago, "smile", png));
    expect((await byName("smile"))!.author_id).to.equal(u.iago.id);
  });

  it("refuses guests and users outside can_add_custom_emoji_group; nothing changes", async function () {
    const before = await listEmoji();
    const png = await pngOf(10, 10);
    expectError(await addEmoji(u.polonius, "guest_emoji", png), 400, "Not allowed for guest users");
    await setRealmFields(server, realm, {
      can_add_custom_emoji_group_id: await systemGroupId(server, realm, "role:administrators"),
    });
    try {
      expectError(await addEmoji(u.othello, "member_emoji", png), 400, "Insufficient permission");
      expect(await listEmoji()).to.deep.equal(before);
      expectSuccess(await addEmoji(u.iago, "admin_emoji", png));
    } finally {
      await setRealmFields(server, realm, {
        can_add_custom_emoji_group_id: await systemGroupId(server, realm, "role:members"),
      });
    }
  });

  it("DELETE: only the author or an administrator; a missing emoji is 404; nothing changes when refused", async function () {
    expectSuccess(await addEmoji(u.othello, "othellos", await pngOf(10, 10)));
    const before = await listEmoji();
    expectError(
      await u.hamlet.client.delete("/realm/emoji/othellos"),
      400,
      "Must be an organization administrator or emoji author",
    );
    expectError(
      await u.polonius.client.delete("/realm/emoji/othellos"),
      400,
      "Must be an organization administrator or emoji author",
    );
    expectError(await u.hamlet.client.delete("/realm/emoji/no_such"), 404, "Emoji 'no_such' does not exist");
    expect(await listEmoji()).to.deep.equal(before);
    expectSuccess(await u.iago.client.delete("/realm/emoji/othellos"));
    expect(await byName("othellos")).to.equal(undefined);
    expectError(await u.iago.client.delete("/realm/emoji/othellos"), 404, "Emoji 'othellos' does not exist");
  });

  it("DELETE by the author deactivates: edit or legacy update events (register parity both ways)", async function () {
    expectSuccess(await addEmoji(u.hamlet, "short_lived", await pngOf(10, 10)));
    const id = (await byName("short_lived"))!.id;
    const capabilities = { client_capabilities: JSON.stringify({ individual_emoji_changes: true }) };
    const legacy = await register(u.othello.client);
    const events = await verifyRegisterParity(u.hamlet.client, capabilities, async () => {
      expectSuccess(await u.hamlet.client.delete("/realm/emoji/short_lived"));
    });
    expect(events.find((e) => e.type === "realm_emoji")).to.deep.include({
      op: "edit",
      emoji_id: id,
      data: { deactivated: true },
    });
    const legacyEvent = (await pendingEvents(u.othello.client, legacy.queue_id as string)).find(
      (e) => e.type === "realm_emoji",
    )!;
    expect(legacyEvent.op).to.equal("update");
    expect(legacyEvent.realm_emoji[id].deactivated).to.equal(true);
    // The name is free again.
    expectSuccess(await addEmoji(u.hamlet, "short_lived", await pngOf(12, 12)));
    expect((await byName("short_lived"))!.id).to.not.equal(id);
  });

  it("renders :name: as the custom emoji, reacts with it by name, and keeps existing reactions after deactivation", async function () {
    expectSuccess(await addEmoji(u.hamlet, "octo-cat", await pngOf(10, 10)));
    const emoji = (await byName("octo-cat"))!;
    const messageId = await sendToChannel(u.hamlet, "Denmark", "emoji", "hello :octo-cat:");
    const message = expectSuccess(await u.othello.client.get(`/messages/${messageId}`)).message as {
      content: string;
    };
    expect(message.content).to.equal(
      `<p>hello <img alt=":octo-cat:" class="emoji" src="${emoji.source_url}" title="octo-cat"></p>`,
    );
    expectSuccess(
      await u.othello.client.post(`/messages/${messageId}/reactions`, { emoji_name: "octo-cat" }),
    );
    const reactions = async () =>
      (expectSuccess(await u.hamlet.client.get(`/messages/${messageId}`)).message as { reactions: unknown[] })
        .reactions;
    expect(await reactions()).to.deep.equal([
      { emoji_name: "octo-cat", emoji_code: emoji.id, reaction_type: "realm_emoji", user_id: u.othello.id },
    ]);
    expectSuccess(await u.hamlet.client.delete("/realm/emoji/octo-cat"));
    // Someone else may still join the existing reaction; a new one with it is refused.
    const code = { emoji_name: "octo-cat", emoji_code: emoji.id, reaction_type: "realm_emoji" };
    expectSuccess(await u.hamlet.client.post(`/messages/${messageId}/reactions`, code));
    expect(await reactions()).to.have.length(2);
    const other = await sendToChannel(u.hamlet, "Denmark", "emoji", "no emoji here");
    expectError(
      await u.othello.client.post(`/messages/${other}/reactions`, code),
      400,
      "This custom emoji has been deactivated.",
    );
    const after = await sendToChannel(u.hamlet, "Denmark", "emoji", "bye :octo-cat:");
    const plain = expectSuccess(await u.othello.client.get(`/messages/${after}`)).message as {
      content: string;
    };
    expect(plain.content).to.equal("<p>bye :octo-cat:</p>");
  });
});

describe("custom emoji: the max_emoji_file_size_mib setting", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer({ max_emoji_file_size_mib: 1 });
    u = cast(await server.factory.realm());
  });
  after(async function () {
    await server.close();
  });

  it("refuses an image over the configured size, in Zulip's words; nothing is added", async function () {
    const add = (name: string, bytes: Buffer) =>
      postUpload(u.hamlet, "emoji.png", bytes, { path: `/realm/emoji/${name}` });
    // A valid PNG padded past 1 MiB (bytes after IEND are ignored by decoders).
    const big = Buffer.concat([await pngOf(10, 10), Buffer.alloc(1024 * 1024)]);
    expectError(await add("big", big), 400, "Uploaded file is larger than the allowed limit of 1 MiB");
    const listed = expectSuccess(await u.hamlet.client.get("/realm/emoji")).emoji as Record<
      string,
      EmojiInfo
    >;
    expect(Object.values(listed).map((e) => e.name)).to.deep.equal([]);
    expectSuccess(await add("small", await pngOf(10, 10)));
  });
});
