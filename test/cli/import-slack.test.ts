import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import yazl from "yazl";
import { createWriteStream } from "node:fs";
import { chatd, chatdSync } from "../helpers/cli.js";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { onPostgres } from "../helpers/postgres.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { FILES, HELLO_TEXT, TS, USERS, writeSlackExport } from "../helpers/slack-export.js";

/** `chatd import slack PATH.zip`: a Slack export, converted as Zulip converts it, then imported. */

interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  subject: string;
  content: string;
  timestamp: number;
  last_edit_timestamp?: number;
  type: string;
  display_recipient: string | Array<{ id: number }>;
  reactions: Array<{ emoji_name: string; emoji_code: string; reaction_type: string; user_id: number }>;
  flags: string[];
}
interface User {
  user_id: number;
  full_name: string;
  role: number;
  is_bot: boolean;
  is_active: boolean;
  timezone: string;
  delivery_email?: string | null;
}

/** The imports' own TMPDIR: another import on the machine (a bench) leaves its files elsewhere. */
const importTmp = mkdtempSync(join(tmpdir(), "chatd-slack-tmp-"));
const tempImportDirs = () => readdirSync(importTmp).filter((name) => name.startsWith("chatd-slack-import-"));

async function writeZip(path: string, files: Record<string, string>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(path);
    out.on("close", resolve);
    out.on("error", reject);
    zip.outputStream.pipe(out);
  });
}

const skipped = onPostgres() ? " (skipped: SQLite suite only)" : "";

describe(`chatd import slack${skipped}`, function () {
  after(() => rmSync(importTmp, { recursive: true, force: true }));
  this.timeout(120_000);
  let root: string;
  let dataDir: string;
  let server: TestServer;
  let summary: Record<string, unknown>;
  const clients = new Map<string, Client>();
  const idOf = new Map<string, number>();

  const as = (email: string) => clients.get(email)!;
  const channelMessages = async (email: string, channel: string) =>
    (
      expectSuccess(
        await as(email).get("/messages", {
          anchor: "oldest",
          num_before: 0,
          num_after: 1000,
          apply_markdown: false,
          narrow: JSON.stringify([{ operator: "channel", operand: channel }]),
        }),
      ) as { messages: Message[] }
    ).messages;

  before(async function () {
    if (skipped) return this.skip();
    root = mkdtempSync(join(tmpdir(), "chatd-slack-test-"));
    const zipPath = join(root, "Acme Slack export Jan 15 2024 - Jan 16 2024.zip");
    await writeSlackExport(zipPath);
    dataDir = join(root, "data");
    // The server's URL gives the host of the addresses made for users Slack has none for.
    const res = await chatd(["--data-dir", dataDir, "import", "slack", zipPath, "--json"], {
      env: { CHATD_EXTERNAL_URL: "http://chatd.test", TMPDIR: importTmp },
    });
    expect(res.code, res.stderr).to.equal(0);
    summary = JSON.parse(res.stdout) as Record<string, unknown>;
    server = await startTestServer({}, { dataDir, keepDataDir: true });
    for (const email of [
      "alice@example.com",
      "bob@example.com",
      "carol@example.com",
      "eve@example.com",
      "frank@chatd.test",
    ]) {
      const key = chatdSync(["--data-dir", dataDir, "api-key", "--email", email, "--json"]);
      expect(key.code, key.stderr).to.equal(0);
      const { api_key, user_id } = JSON.parse(key.stdout) as { api_key: string; user_id: number };
      clients.set(email, new Client(server.url, { email, apiKey: api_key }));
      idOf.set(email, user_id);
    }
  });

  after(async function () {
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("prints what it imported, and leaves no temporary directory", function () {
    expect(summary).to.deep.include({ messages: 19, channels: 4, reactions: 5, uploads: 2 });
    expect((summary.realm as { name: string }).name).to.equal("Acme");
    expect(tempImportDirs()).to.deep.equal([]);
  });

  it("has Slack's users with their names, roles, time zones; bots as bots; the deleted deactivated", async function () {
    const { members } = expectSuccess(
      await as("alice@example.com").get("/users", { client_gravatar: false }),
    ) as {
      members: User[];
    };
    const byName = new Map(members.map((m) => [m.full_name, m]));
    const expectUser = (name: string, fields: Partial<User>) =>
      expect(byName.get(name), name).to.deep.include(fields);
    expectUser("Alice Ádám", { role: 100, is_bot: false, is_active: true, timezone: "Europe/Budapest" });
    expectUser("Bob 李", { role: 200, is_bot: false, is_active: true, timezone: "Asia/Tokyo" });
    expectUser("Carol Ørsted", { role: 100, is_active: true });
    expectUser("Eve Guest", { role: 600, is_active: true, timezone: "America/Chicago" });
    // No IANA zone in Slack: Zulip's default.
    expectUser("Frank Sansmail", { role: 400, is_active: true, timezone: "America/New_York" });
    // A deleted Slack user is deactivated and named by the handle, as Zulip's importer does.
    expectUser("dave", { is_active: false, is_bot: false });
    expectUser("Deploy Bot", { is_bot: true, is_active: true });
    expectUser("Slackbot", { is_bot: true });
    // The integration that posted with only a bot_id: a bot named by the message's username.
    expectUser("Jenkins CI", { is_bot: true });
    expect(members).to.have.length(USERS.length + 1);
    expect(byName.get("Alice Ádám")!.user_id).to.equal(idOf.get("alice@example.com"));
  });

  it("gives a user without an email one at the server's host, bots theirs as Zulip's importer names them", async function () {
    const key = chatdSync(["--data-dir", dataDir, "api-key", "--email", "frank@chatd.test", "--json"]);
    expect(key.code, key.stderr).to.equal(0);
    const { user_id } = JSON.parse(key.stdout) as { user_id: number };
    const { user } = expectSuccess(await as("alice@example.com").get(`/users/${user_id}`)) as { user: User };
    expect(user.full_name).to.equal("Frank Sansmail");
    const { members } = expectSuccess(await as("alice@example.com").get("/users")) as {
      members: Array<User & { email: string }>;
    };
    const emailOf = (name: string) => members.find((m) => m.full_name === name)!.email;
    expect(emailOf("Deploy Bot")).to.equal("deploy-bot@chatd.test");
    expect(emailOf("Jenkins CI")).to.equal("jenkinsci-bot@chatd.test");
    expect(emailOf("Slackbot")).to.equal("imported-slackbot-bot@chatd.test");
  });

  it("has the channels: descriptions from purposes or topics, private invite-only, archived archived", async function () {
    const { streams } = expectSuccess(
      await as("alice@example.com").get("/streams", { include_all: true, exclude_archived: false }),
    ) as {
      streams: Array<{ name: string; description: string; invite_only: boolean; is_archived: boolean }>;
    };
    const byName = new Map(streams.map((s) => [s.name, s]));
    expect(byName.get("general")).to.deep.include({
      description: "Company-wide ✨ announcements and chat",
      invite_only: false,
      is_archived: false,
    });
    expect(byName.get("random")).to.deep.include({ description: "Anything goes 🎲", invite_only: false });
    expect(byName.get("sécret")).to.deep.include({ description: "Private plans", invite_only: true });
    expect(byName.get("vieux-projet")).to.deep.include({ is_archived: true });
  });

  it("subscribes Slack's members", async function () {
    const names = async (email: string) =>
      (
        expectSuccess(await as(email).get("/users/me/subscriptions")) as {
          subscriptions: Array<{ name: string }>;
        }
      ).subscriptions
        .map((s) => s.name)
        .sort();
    expect(await names("bob@example.com")).to.deep.equal(["general", "random", "sécret"]);
    expect(await names("eve@example.com")).to.deep.equal(["general"]);
  });

  it("keeps senders, times and converted markup; unthreaded messages in Zulip's topic", async function () {
    const messages = await channelMessages("alice@example.com", "general");
    const hello = messages.find((m) => m.timestamp === Math.floor(Number(TS.hello)))!;
    expect(hello, HELLO_TEXT).to.not.equal(undefined);
    expect(hello).to.deep.include({ sender_full_name: "Alice Ádám", subject: "imported from Slack" });
    expect(hello.content).to.equal(
      "Hello **world** and *everyone*, ~~gone~~ `*not bold*` @**Bob 李** @**Carol Ørsted** #**random** @**all** " +
        "[Example & co](https://example.com/a_b_c) https://example.org mailto:x@example.com <tag> — ünïcödé 🎉",
    );
    // Join and leave notices are dropped, as Zulip's importer drops them.
    expect(messages.some((m) => m.content.includes("has joined"))).to.equal(false);
    expect(messages.some((m) => m.content.includes("has left"))).to.equal(false);
    const me = messages.find((m) => m.timestamp === Math.floor(Number(TS.me)))!;
    expect(me.content).to.equal("/me waves 👋");
    const code = messages.find((m) => m.timestamp === Math.floor(Number(TS.code)))!;
    expect(code.content).to.equal("```\nconst a = *b*;\nif (a < b) return;\n```");
    const jenkins = messages.find((m) => m.timestamp === Math.floor(Number(TS.integration)))!;
    expect(jenkins).to.deep.include({ sender_full_name: "Jenkins CI", content: "Build #42 passed" });
    const dave = messages.find((m) => m.timestamp === Math.floor(Number(TS.deleted)))!;
    expect(dave.sender_full_name).to.equal("dave");
  });

  it("renders as a message sent on the server would: mentions of users, channels and all", async function () {
    const { messages } = expectSuccess(
      await as("bob@example.com").get("/messages", {
        anchor: "oldest",
        num_before: 0,
        num_after: 1000,
        narrow: JSON.stringify([{ operator: "channel", operand: "general" }]),
      }),
    ) as { messages: Message[] };
    const hello = messages.find((m) => m.timestamp === Math.floor(Number(TS.hello)))!;
    expect(hello.content).to.include(
      `<span class="user-mention" data-user-id="${idOf.get("bob@example.com")}">@Bob 李</span>`,
    );
    expect(hello.content).to.include("<strong>world</strong>");
    expect(hello.content).to.include('<a href="https://example.com/a_b_c">Example &amp; co</a>');
    expect(hello.flags).to.include("mentioned");
  });

  it("makes each thread a topic named by its date and first message, replies of later days included", async function () {
    const messages = await channelMessages("alice@example.com", "general");
    const topic = "2024-01-15 Déploiement ce soir ? Let's discuss the **releas…";
    const thread = messages.filter((m) => m.subject === topic);
    expect(thread.map((m) => [m.sender_full_name, m.content])).to.deep.equal([
      ["Bob 李", "Déploiement ce soir ? Let's discuss the **release** plan for the new version here"],
      ["Alice Ádám", "Yes, at 20:00 🚀"],
      ["Carol Ørsted", "Done ✅"],
    ]);
    expect(thread[2]!.timestamp).to.equal(Math.floor(Number(TS.threadReply2)));
  });

  it("maps reactions to Zulip's emoji names, skin tones folded, unknown emoji left out", async function () {
    const messages = await channelMessages("alice@example.com", "general");
    const hello = messages.find((m) => m.timestamp === Math.floor(Number(TS.hello)))!;
    const reactions = hello.reactions
      .map((r) => [r.emoji_name, r.emoji_code, r.reaction_type, r.user_id] as const)
      .sort((a, b) => (a[0] + a[3]).localeCompare(b[0] + b[3]));
    const bob = idOf.get("bob@example.com")!;
    const carol = idOf.get("carol@example.com")!;
    const eve = idOf.get("eve@example.com")!;
    expect(reactions).to.deep.equal(
      [
        ["+1", "1f44d", "unicode_emoji", bob],
        ["+1", "1f44d", "unicode_emoji", carol],
        ["clap", "1f44f", "unicode_emoji", bob],
        ["clap", "1f44f", "unicode_emoji", eve],
      ].sort((a, b) => (String(a[0]) + String(a[3])).localeCompare(String(b[0]) + String(b[3]))),
    );
  });

  it("marks edited messages edited at the edit's time, rounded down", async function () {
    const messages = await channelMessages("alice@example.com", "general");
    const edited = messages.find((m) => m.timestamp === Math.floor(Number(TS.edited)))!;
    expect(edited.last_edit_timestamp).to.equal(Math.floor(Number(TS.editedAt)));
    const hello = messages.find((m) => m.timestamp === Math.floor(Number(TS.hello)))!;
    expect(hello).to.not.have.property("last_edit_timestamp");
  });

  it("makes files in the zip uploads, downloadable byte for byte; others stay links", async function () {
    const messages = await channelMessages("alice@example.com", "general");
    const report = messages.find((m) => m.timestamp === Math.floor(Number(TS.fileInZip)))!;
    const match = /^Here is the report\n\[Quarterly report\]\((\/user_uploads\/[^)]+)\)$/.exec(
      report.content,
    );
    expect(match, report.content).to.not.equal(null);
    const image = messages.find((m) => m.timestamp === Math.floor(Number(TS.image)))!;
    const imageUrl = /\((\/user_uploads\/[^)]+)\)/.exec(image.content)![1]!;
    const auth = as("bob@example.com").credentials!;
    const headers = {
      authorization: `Basic ${Buffer.from(`${auth.email}:${auth.apiKey}`).toString("base64")}`,
    };
    for (const [url, bytes] of [
      [match![1]!, FILES.report.bytes],
      [imageUrl, FILES.image.bytes],
    ] as const) {
      const res = await fetch(new URL(url, server.url), { headers });
      expect(res.status, url).to.equal(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes), url).to.equal(true);
    }
    const outside = messages.find((m) => m.timestamp === Math.floor(Number(TS.fileOutside)))!;
    expect(outside.content).to.equal(`[Design](${FILES.outside.url})`);
    // A deleted file (a tombstone) and nothing else: no message.
    expect(messages.some((m) => m.timestamp === Math.floor(Number(TS.tombstone)))).to.equal(false);
  });

  it("keeps private channels, group DMs and DMs to their members", async function () {
    expect((await channelMessages("bob@example.com", "sécret")).map((m) => m.content)).to.deep.equal([
      "Top **secret** 🤫",
    ]);
    const dms = (
      expectSuccess(
        await as("bob@example.com").get("/messages", {
          anchor: "oldest",
          num_before: 0,
          num_after: 100,
          apply_markdown: false,
          narrow: JSON.stringify([{ operator: "is", operand: "dm" }]),
        }),
      ) as { messages: Message[] }
    ).messages;
    expect(dms.map((m) => [m.sender_full_name, m.content, m.type])).to.deep.equal([
      ["Carol Ørsted", "Group chat ☕", "private"],
      ["Alice Ádám", "Hi Bob, privately", "private"],
      ["Bob 李", "Hi Alice 👋", "private"],
    ]);
    expect(dms[0]!.display_recipient).to.have.length(3);
    expect(dms[2]!.reactions.map((r) => [r.emoji_name, r.user_id])).to.deep.equal([
      ["heart", idOf.get("alice@example.com")],
    ]);
    const eve = (
      expectSuccess(
        await as("eve@example.com").get("/messages", {
          anchor: "oldest",
          num_before: 0,
          num_after: 100,
          narrow: JSON.stringify([{ operator: "is", operand: "dm" }]),
        }),
      ) as { messages: Message[] }
    ).messages;
    expect(eve).to.deep.equal([]);
  });

  it("gets the system groups Zulip's importer makes, each user in their role's", async function () {
    const { user_groups } = expectSuccess(await as("frank@chatd.test").get("/user_groups")) as {
      user_groups: Array<{ id: number; name: string; members: number[]; direct_subgroup_ids: number[] }>;
    };
    const byName = new Map(user_groups.map((g) => [g.name, g]));
    expect([...byName.keys()].sort()).to.deep.equal([
      "role:administrators",
      "role:everyone",
      "role:fullmembers",
      "role:internet",
      "role:members",
      "role:moderators",
      "role:nobody",
      "role:owners",
    ]);
    const { members: users } = expectSuccess(await as("alice@example.com").get("/users")) as {
      members: User[];
    };
    const idsWithRole = (role: number) =>
      users
        .filter((u) => u.role === role && u.is_active)
        .map((u) => u.user_id)
        .sort((a, b) => a - b);
    const members = (name: string) => [...byName.get(name)!.members].sort((a, b) => a - b);
    expect(members("role:owners")).to.deep.equal(
      [idOf.get("alice@example.com"), idOf.get("carol@example.com")].sort((a, b) => a! - b!),
    );
    expect(members("role:administrators")).to.deep.equal([idOf.get("bob@example.com")]);
    expect(members("role:moderators")).to.deep.equal([]);
    expect(members("role:members")).to.deep.equal(idsWithRole(400));
    expect(members("role:members")).to.include(idOf.get("frank@chatd.test"));
    expect(members("role:fullmembers")).to.deep.equal(idsWithRole(400));
    expect(members("role:everyone")).to.deep.equal([idOf.get("eve@example.com")]);
    expect(byName.get("role:moderators")!.direct_subgroup_ids).to.deep.equal([
      byName.get("role:administrators")!.id,
    ]);
  });

  it("lets the owner, the Slack admin and a member post to a channel", async function () {
    for (const email of ["alice@example.com", "bob@example.com", "frank@chatd.test"]) {
      const sent = expectSuccess(
        await as(email).post("/messages", {
          type: "stream",
          to: "general",
          topic: "after import",
          content: `from ${email}`,
        }),
      ) as { id: number };
      expect(sent.id, email).to.be.a("number");
    }
    const posted = (await channelMessages("alice@example.com", "general")).filter(
      (m) => m.subject === "after import",
    );
    expect(posted.map((m) => m.sender_id)).to.deep.equal(
      ["alice@example.com", "bob@example.com", "frank@chatd.test"].map((e) => idOf.get(e)),
    );
  });

  it("lets a member create a channel and keeps a guest from it, as in a new Zulip organization", async function () {
    expectSuccess(
      await as("frank@chatd.test").post("/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: "member-made" }]),
      }),
    );
    const res = await as("eve@example.com").post("/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name: "guest-made" }]),
    });
    expectError(res, 400, "Not allowed for guest users");
    const { streams } = expectSuccess(
      await as("alice@example.com").get("/streams", { include_all: true }),
    ) as {
      streams: Array<{ name: string }>;
    };
    const names = streams.map((s) => s.name);
    expect(names).to.include("member-made");
    expect(names).to.not.include("guest-made");
  });

  it("registers with the realm's group settings as group ids", async function () {
    const state = expectSuccess(await as("alice@example.com").post("/register", {})) as Record<
      string,
      unknown
    >;
    const { user_groups } = expectSuccess(await as("alice@example.com").get("/user_groups")) as {
      user_groups: Array<{ id: number; name: string }>;
    };
    const groupId = (name: string) => user_groups.find((g) => g.name === name)!.id;
    expect(state.realm_can_create_public_channel_group).to.equal(groupId("role:members"));
    expect(state.realm_can_delete_any_message_group).to.equal(groupId("role:administrators"));
    expect(state.realm_direct_message_permission_group).to.equal(groupId("role:everyone"));
    expect(state.realm_can_manage_all_groups).to.equal(groupId("role:owners"));
  });

  it("moves a user between system groups when the owner changes their role", async function () {
    const frank = idOf.get("frank@chatd.test")!;
    expectSuccess(await as("alice@example.com").patch(`/users/${frank}`, { role: 300 }));
    const { user_groups } = expectSuccess(await as("alice@example.com").get("/user_groups")) as {
      user_groups: Array<{ name: string; members: number[] }>;
    };
    const has = (name: string) => user_groups.find((g) => g.name === name)!.members.includes(frank);
    expect(["role:moderators", "role:members", "role:fullmembers"].map(has)).to.deep.equal([
      true,
      false,
      false,
    ]);
  });

  describe("refuses what it cannot import, leaving nothing behind", function () {
    let dir: string;
    before(function () {
      dir = mkdtempSync(join(tmpdir(), "chatd-slack-refusal-"));
    });
    after(function () {
      rmSync(dir, { recursive: true, force: true });
    });

    const refused = async (zipPath: string, message: string | RegExp, target = join(dir, "data")) => {
      const res = await chatd(["--data-dir", target, "import", "slack", zipPath], {
        env: { TMPDIR: importTmp },
      });
      expect(res.code, res.stderr).to.not.equal(0);
      if (typeof message === "string") expect(res.stderr).to.include(message);
      else expect(res.stderr).to.match(message);
      expect(res.stderr).to.not.match(/at .*\.js:\d+/);
      expect(tempImportDirs()).to.deep.equal([]);
      return res;
    };

    it("a file that is not a zip", async function () {
      const path = join(dir, "notes.zip");
      writeFileSync(path, "just some text");
      await refused(path, `${path} is not a zip archive`);
      expect(existsSync(join(dir, "data"))).to.equal(false);
    });

    it("a zip that is not a Slack export", async function () {
      const path = join(dir, "photos.zip");
      await writeZip(path, { "photo.txt": "not slack" });
      await refused(path, "is not a Slack export: it has no users.json");
      expect(existsSync(join(dir, "data"))).to.equal(false);
    });

    it("a file that is not JSON, named", async function () {
      const path = join(dir, "bad-json.zip");
      await writeZip(path, { "users.json": "[{", "channels.json": "[]" });
      await refused(path, "users.json is not valid JSON");
      expect(existsSync(join(dir, "data"))).to.equal(false);
    });

    it("a field of the wrong kind, named with its file and place", async function () {
      const path = join(dir, "bad-field.zip");
      await writeZip(path, {
        "users.json": JSON.stringify([{ id: "U1", name: "a", profile: { email: "a@example.com" } }]),
        "channels.json": JSON.stringify([{ id: "C1", name: "general", created: 1, members: "U1" }]),
      });
      await refused(path, 'channels.json[0]: field "members" is not a list of strings');
      expect(existsSync(join(dir, "data"))).to.equal(false);
    });

    it("a bad message in a day file, named with its file and place", async function () {
      const path = join(dir, "bad-message.zip");
      await writeZip(path, {
        "users.json": JSON.stringify([{ id: "U1", name: "a", profile: { email: "a@example.com" } }]),
        "channels.json": JSON.stringify([{ id: "C1", name: "general", created: 1, members: ["U1"] }]),
        "general/2024-01-01.json": JSON.stringify([{ type: "message", user: "U1", text: "hi", ts: "x" }]),
      });
      await refused(path, 'general/2024-01-01.json[0]: field "ts" is missing or not a timestamp');
      expect(existsSync(join(dir, "data"))).to.equal(false);
    });

    it("a data directory that already holds something", async function () {
      const path = join(dir, "ok.zip");
      await writeSlackExport(path);
      const target = join(dir, "full");
      mkdirSync(target);
      writeFileSync(join(target, "keep.txt"), "mine");
      await refused(path, "is not empty", target);
      expect(readdirSync(target)).to.deep.equal(["keep.txt"]);
    });
  });
});
