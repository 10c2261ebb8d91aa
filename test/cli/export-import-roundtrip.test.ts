import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import sharp from "sharp";
import { createBot } from "../helpers/bots.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { chatd } from "../helpers/cli.js";
import { Client, expectSuccess, type Params } from "../helpers/client.js";
import type { TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { createEmptyDatabase, onPostgres } from "../helpers/postgres.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postUpload, upload } from "../helpers/uploads.js";

/**
 * Issue #30's round trip: a realm built over the API with every kind of data, `chatd export`
 * beside the running server, `chatd import zulip` into an empty data directory, and a server
 * on the copy answers as the original, byte for byte, but for the server's own URL and the
 * event queue's id (new on every register).
 */

const ALL = { anchor: "newest", num_before: 1000, num_after: 0, apply_markdown: true };

type Narrow = Array<{ operator: string; operand: unknown }>;

describe("chatd export, then chatd import zulip: the copy answers as the original", function () {
  this.timeout(180_000);
  let root: string;
  let source: TestServer;
  let copy: TestServer;
  let u: Cast;
  let people: TestUser[];
  const keys = new Map<string, string>();
  const channelIds: Record<string, number> = {};
  const uploads: Array<[TestUser, string]> = [];
  let imported: Record<string, unknown>;
  let written: Record<string, unknown>;

  before(async function () {
    root = mkdtempSync(join(tmpdir(), "chatd-roundtrip-"));
    source = await startTestServer();
    const realm = await source.factory.realm();
    u = cast(realm);
    const { hamlet, othello, cordelia, iago, desdemona, prospero, polonius } = u;
    // Custom profile fields, one with a value.
    const phone = expectSuccess(
      await iago.client.post("/realm/profile_fields", { field_type: 1, name: "Phone" }),
    ).id as number;
    const editor = expectSuccess(
      await iago.client.post("/realm/profile_fields", {
        field_type: 3,
        name: "Editor",
        field_data: { vim: { text: "Vim", order: "1" }, emacs: { text: "Emacs", order: "2" } },
      }),
    ).id as number;
    expectSuccess(
      await hamlet.client.patch("/users/me/profile_data", {
        data: [
          { id: phone, value: "+45 1234 5678" },
          { id: editor, value: "vim" },
        ],
      }),
    );
    // Custom emoji.
    const png = await sharp({
      create: { width: 64, height: 64, channels: 3, background: { r: 9, g: 99, b: 200 } },
    })
      .png()
      .toBuffer();
    expectSuccess(
      await postUpload(hamlet, "ship.png", png, { path: "/realm/emoji/yorick_skull", type: "image/png" }),
    );
    // An uploaded avatar.
    expectSuccess(await postUpload(othello, "me.png", png, { path: "/users/me/avatar", type: "image/png" }));
    // A user group whose members may be managed by another group, and a folder.
    const players = expectSuccess(
      await iago.client.post("/user_groups/create", {
        name: "Players",
        description: "The *troupe*",
        members: [hamlet.id, othello.id],
        can_mention_group: JSON.stringify({ direct_members: [cordelia.id], direct_subgroups: [] }),
      }),
    ).group_id as number;
    expectSuccess(
      await iago.client.post("/user_groups/create", {
        name: "Court",
        description: "",
        members: [iago.id],
        subgroups: [players],
      }),
    );
    const folder = expectSuccess(
      await iago.client.post("/channel_folders/create", { name: "Castle", description: "The **keep**" }),
    ).channel_folder_id as number;
    // Channels: public in a folder, private, and one hamlet muted a topic in.
    channelIds.elsinore = await createChannel(
      hamlet,
      "Elsinore",
      [hamlet, othello, cordelia, iago, polonius],
      {
        folder_id: folder,
        description: "The castle's *own*",
      },
    );
    channelIds.secret = await createChannel(iago, "Arras", [iago, hamlet], { invite_only: true });
    // Uploads, referenced from messages.
    uploads.push([hamlet, await upload(hamlet, "notes.txt", Buffer.from("kept across the move é"))]);
    uploads.push([othello, await upload(othello, "map.png", png, "image/png")]);
    const ghost = await sendToChannel(
      othello,
      "Elsinore",
      "battlements",
      `@**${hamlet.fullName}** a ghost, zanzibar`,
    );
    const edited = await sendToChannel(hamlet, "Elsinore", "battlements", "first words");
    const files = await sendToChannel(hamlet, "Elsinore", "papers", `see [notes](${uploads[0]![1]})`);
    const moved = await sendToChannel(cordelia, "Elsinore", "old topic", "move me :yorick_skull:");
    await sendToChannel(cordelia, "Elsinore", "old topic", "and me @*Players*");
    const hidden = await sendToChannel(iago, "Arras", "plots", "behind the arras, zanzibar");
    const dm = await sendDirect(othello, [hamlet], `a direct word with [a map](${uploads[1]![1]})`);
    const groupDm = await sendDirect(othello, [hamlet, cordelia], "all three, zanzibar");
    await sendDirect(hamlet, [hamlet], "a note to self");
    await sendDirect(prospero, [desdemona], "/me waves");
    // Edits and a topic move.
    expectSuccess(await hamlet.client.patch(`/messages/${edited}`, { content: "second words" }));
    expectSuccess(await hamlet.client.patch(`/messages/${edited}`, { content: "third words, **bold**" }));
    expectSuccess(
      await cordelia.client.patch(`/messages/${moved}`, { topic: "new topic", propagate_mode: "change_all" }),
    );
    // Reactions, unicode and custom.
    for (const [who, id, emoji] of [
      [othello, ghost, "smile"],
      [hamlet, ghost, "yorick_skull"],
      [cordelia, ghost, "smile"],
      [iago, hidden, "heart"],
      [hamlet, groupDm, "yorick_skull"],
    ] as const) {
      expectSuccess(await who.client.post(`/messages/${id}/reactions`, { emoji_name: emoji }));
    }
    // Stars and read flags, per user.
    const flag = (who: TestUser, messages: number[], flagName: string, op = "add") =>
      who.client.post("/messages/flags", { messages: JSON.stringify(messages), op, flag: flagName });
    expectSuccess(await flag(hamlet, [ghost, dm, files], "starred"));
    expectSuccess(await flag(othello, [edited], "starred"));
    expectSuccess(await flag(hamlet, [ghost, groupDm], "read"));
    expectSuccess(await flag(cordelia, [ghost, moved, groupDm], "read"));
    expectSuccess(await flag(othello, [dm, groupDm], "read", "remove"));
    // Per-user settings that ride along.
    expectSuccess(
      await hamlet.client.post("/user_topics", {
        stream_id: channelIds.elsinore,
        topic: "papers",
        visibility_policy: 1,
      }),
    );
    expectSuccess(
      await othello.client.post("/users/me/status", { status_text: "At sea", emoji_name: "ship" }),
    );
    expectSuccess(await hamlet.client.post("/users/me/alert_words", { alert_words: ["ghost"] }));
    // Drafts and scheduled messages.
    expectSuccess(
      await hamlet.client.post("/drafts", {
        drafts: JSON.stringify([
          {
            type: "stream",
            to: [channelIds.elsinore],
            topic: "battlements",
            content: "unsent",
            timestamp: 1_700_000_000,
          },
          {
            type: "private",
            to: [othello.id, cordelia.id],
            topic: "",
            content: "to both",
            timestamp: 1_700_000_100,
          },
        ]),
      }),
    );
    const later = Math.floor(Date.now() / 1000) + 86_400;
    expectSuccess(
      await hamlet.client.post("/scheduled_messages", {
        type: "stream",
        to: channelIds.elsinore,
        topic: "tomorrow",
        content: "scheduled **words**",
        scheduled_delivery_timestamp: later,
      }),
    );
    expectSuccess(
      await othello.client.post("/scheduled_messages", {
        type: "direct",
        to: JSON.stringify([hamlet.id]),
        content: "a scheduled direct word",
        scheduled_delivery_timestamp: later + 60,
      }),
    );
    // Bots: a generic one and an outgoing webhook with its service.
    const generic = await createBot(hamlet, "helper");
    const outgoing = await createBot(hamlet, "hook", {
      bot_type: 3,
      payload_url: JSON.stringify("https://bots.example.com/zulip"),
      interface_type: 1,
    });
    // Sign-ups limited to two email domains (owners only).
    expectSuccess(
      await desdemona.client.post("/realm/domains", { domain: "elsinore.example", allow_subdomains: true }),
    );
    expectSuccess(
      await desdemona.client.post("/realm/domains", { domain: "venice.example", allow_subdomains: false }),
    );
    expectSuccess(await desdemona.client.patch("/realm", { emails_restricted_to_domains: true }));
    // A deactivated user.
    expectSuccess(await iago.client.delete(`/users/${polonius.id}`));

    people = [desdemona, iago, prospero, hamlet, othello, cordelia];
    for (const p of people) keys.set(p.email, p.apiKey);
    keys.set(generic.email, generic.apiKey);
    keys.set(outgoing.email, outgoing.apiKey);

    // The export, beside the running server.
    const archive = join(root, "realm.tar.gz");
    const exported = await chatd(["--data-dir", source.dataDir, "export", "--output", archive, "--json"]);
    expect(exported.code, exported.stderr).to.equal(0);

    // The import into an empty data directory (an empty database on PostgreSQL).
    const copyDir = join(root, "copy");
    const databaseUrl = onPostgres() ? await createEmptyDatabase() : "";
    const env = databaseUrl ? { CHATD_DATABASE_URL: databaseUrl } : {};
    const run = await chatd(["--data-dir", copyDir, "import", "zulip", archive, "--json"], { env });
    expect(run.code, run.stderr).to.equal(0);
    imported = JSON.parse(run.stdout) as Record<string, unknown>;
    written = JSON.parse(exported.stdout) as Record<string, unknown>;
    // API keys are not exported: the copy's are issued with the CLI.
    const copyKeys = new Map<string, string>();
    for (const email of keys.keys()) {
      const key = await chatd(["--data-dir", copyDir, "api-key", "--email", email, "--json"], { env });
      expect(key.code, key.stderr).to.equal(0);
      copyKeys.set(email, (JSON.parse(key.stdout) as { api_key: string }).api_key);
    }
    copy = await startTestServer({ database_url: databaseUrl }, { dataDir: copyDir, keepDataDir: true });
    expect(copy.url).not.to.equal(source.url);
    for (const [email, key] of copyKeys) keys.set(`copy:${email}`, key);
  });

  after(async function () {
    await copy?.close();
    await source?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const original = (user: TestUser) => user.client;
  const onCopy = (user: { email: string }) =>
    new Client(copy.url, { email: user.email, apiKey: keys.get(`copy:${user.email}`)! });
  /** A body with the server's own URL written the same on both sides. */
  const masked = (server: TestServer, body: unknown) =>
    JSON.parse(JSON.stringify(body).split(server.url).join("http://SERVER")) as unknown;

  async function same(
    user: TestUser,
    method: "get" | "post",
    path: string,
    params: Params = {},
  ): Promise<Record<string, unknown>> {
    const before = expectSuccess(await original(user)[method](path, params));
    const after = expectSuccess(await onCopy(user)[method](path, params));
    expect(masked(copy, after), `${user.email} ${path} ${JSON.stringify(params)}`).to.deep.equal(
      masked(source, before),
    );
    return before as Record<string, unknown>;
  }

  it("imports what the export wrote", function () {
    for (const key of ["users", "bots", "channels", "messages", "reactions", "uploads", "emoji"])
      expect(imported[key], key).to.equal(written[key]);
    expect(written.avatars).to.be.at.least(1);
    expect(imported).to.deep.include({ users: 7, channels: 2, reactions: 5, uploads: 2, emoji: 1 });
  });

  it("GET /messages answers the same for every user and every narrow", async function () {
    const { hamlet, othello, cordelia } = u;
    const narrows: Narrow[] = [
      [],
      [{ operator: "channel", operand: channelIds.elsinore }],
      [{ operator: "channel", operand: channelIds.secret }],
      [
        { operator: "channel", operand: channelIds.elsinore },
        { operator: "topic", operand: "new topic" },
      ],
      [{ operator: "topic", operand: "battlements" }],
      [{ operator: "dm", operand: [othello.id] }],
      [{ operator: "dm", operand: [hamlet.id, cordelia.id] }],
      [{ operator: "dm-including", operand: hamlet.id }],
      [{ operator: "is", operand: "dm" }],
      [{ operator: "is", operand: "starred" }],
      [{ operator: "is", operand: "mentioned" }],
      [{ operator: "is", operand: "unread" }],
      [{ operator: "is", operand: "followed" }],
      [{ operator: "has", operand: "attachment" }],
      [{ operator: "has", operand: "image" }],
      [{ operator: "has", operand: "link" }],
      [{ operator: "has", operand: "reaction" }],
      [{ operator: "search", operand: "zanzibar" }],
      [{ operator: "sender", operand: othello.id }],
      [{ operator: "channels", operand: "public" }],
    ];
    for (const user of people) {
      for (const narrow of narrows) {
        const body = await same(user, "get", "/messages", { ...ALL, narrow: JSON.stringify(narrow) });
        if (narrow.length === 0 && user === hamlet) {
          // The answer holds what is compared: edits, a move, both kinds of reaction, flags.
          const messages = body.messages as Array<Record<string, unknown>>;
          expect(messages).to.have.length.greaterThan(8);
          expect(messages.some((m) => m.subject === "new topic")).to.equal(true);
          expect(messages.filter((m) => m.last_edit_timestamp)).to.have.length(1);
          const reactions = messages.flatMap((m) => m.reactions as Array<{ reaction_type: string }>);
          expect(new Set(reactions.map((r) => r.reaction_type))).to.deep.equal(
            new Set(["unicode_emoji", "realm_emoji"]),
          );
          expect(messages.filter((m) => (m.flags as string[]).includes("starred"))).to.have.length(3);
        }
      }
      await same(user, "get", "/messages", { ...ALL, apply_markdown: false });
    }
  });

  it("POST /register answers the same but for the queue's id", async function () {
    for (const user of people) {
      const before = expectSuccess(await original(user).post("/register", {}));
      const after = expectSuccess(await onCopy(user).post("/register", {}));
      for (const body of [before, after]) {
        expect(body.queue_id).to.be.a("string");
        body.queue_id = "QUEUE";
        // The time of the answer.
        body.server_timestamp = 0;
      }
      const [a, b] = [masked(copy, after), masked(source, before)] as Array<Record<string, unknown>>;
      for (const key of Object.keys(b!)) expect(a![key], `${user.email} ${key}`).to.deep.equal(b![key]);
      expect(Object.keys(a!).sort()).to.deep.equal(Object.keys(b!).sort());
      if (user === u.hamlet)
        for (const key of [
          "drafts",
          "scheduled_messages",
          "realm_user_groups",
          "custom_profile_fields",
          "channel_folders",
          "starred_messages",
          "user_topics",
          "alert_words",
          "realm_domains",
        ])
          expect(b![key], key).to.not.be.empty;
      expect(b!.realm_emails_restricted_to_domains).to.equal(true);
    }
  });

  it("GET /users and the other lists answer the same", async function () {
    for (const user of people) {
      await same(user, "get", "/users", { include_custom_profile_fields: true, client_gravatar: false });
      await same(user, "get", "/streams", { include_all: true });
      await same(user, "get", "/users/me/subscriptions", { include_subscribers: true });
      await same(user, "get", "/user_groups", { include_deactivated_groups: true });
      await same(user, "get", "/drafts");
      await same(user, "get", "/scheduled_messages");
      await same(user, "get", "/realm/emoji");
      await same(user, "get", "/users/me/alert_words");
      await same(user, "get", "/realm/domains");
    }
    await same(u.hamlet, "get", "/bots");
  });

  it("serves the uploads' bytes, and the custom emoji's", async function () {
    const bytes = async (server: TestServer, user: TestUser, path: string) => {
      const client = server === source ? original(user) : onCopy(user);
      const res = await fetch(new URL(path, server.url), {
        headers: {
          Authorization: `Basic ${Buffer.from(`${user.email}:${client.credentials!.apiKey}`).toString("base64")}`,
        },
      });
      expect(res.status, path).to.equal(200);
      return Buffer.from(await res.arrayBuffer());
    };
    for (const [owner, path] of uploads) {
      const before = await bytes(source, owner, path);
      expect(before.length).to.be.greaterThan(0);
      expect((await bytes(copy, owner, path)).equals(before), path).to.equal(true);
    }
    const me = expectSuccess(await u.othello.client.get("/users/me")) as { avatar_url: string };
    expect(me.avatar_url).to.contain("/user_avatars/");
    const avatar = await bytes(source, u.othello, me.avatar_url);
    expect((await bytes(copy, u.othello, me.avatar_url)).equals(avatar)).to.equal(true);
    const emoji = Object.values(
      expectSuccess(await u.hamlet.client.get("/realm/emoji")).emoji as Record<
        string,
        { source_url: string }
      >,
    );
    for (const { source_url } of emoji) {
      const before = await bytes(source, u.hamlet, source_url);
      expect((await bytes(copy, u.hamlet, source_url)).equals(before), source_url).to.equal(true);
    }
  });

  it("goes on from the copied ids: the next message, group and channel get the ids the original gives", async function () {
    const next = async (client: Client) => ({
      message: expectSuccess(
        await client.post("/messages", {
          type: "stream",
          to: "Elsinore",
          topic: "after",
          content: "onwards",
        }),
      ).id as number,
      group: expectSuccess(
        await client.post("/user_groups/create", { name: "Later", description: "", members: [u.hamlet.id] }),
      ).group_id as number,
      channel: expectSuccess(
        await client.post("/channels/create", { name: "Later", subscribers: [u.hamlet.id] }),
      ).id as number,
    });
    const before = await next(u.iago.client);
    for (const id of Object.values(before)) expect(id).to.be.a("number");
    expect(await next(onCopy(u.iago))).to.deep.equal(before);
  });
});
