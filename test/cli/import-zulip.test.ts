import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { c as tarCreate } from "tar";
import { ROOT, chatd } from "../helpers/cli.js";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import pg from "pg";
import { createEmptyDatabase, onPostgres } from "../helpers/postgres.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** `chatd import zulip`: test/fixtures/zulip-export is written as Zulip's export.py writes (see its README). */

const FIXTURE = join(ROOT, "test", "fixtures", "zulip-export");
const T0 = 1700000000;
const PATH_ID = "2/ab/abcdefghijklmnopqrstuvwx/notes.txt";
const ALL = { anchor: "newest", num_before: 100, num_after: 0 };

type Msg = {
  id: number;
  flags: string[];
  reactions: Array<Record<string, unknown>>;
  last_edit_timestamp?: number;
};

/**
 * Where an import goes: on the PostgreSQL suite an empty database of its own (the CLI
 * helper's default is a migrated copy of the template, which an import refuses).
 */
async function importTarget(): Promise<{ url: string; env: NodeJS.ProcessEnv }> {
  if (!onPostgres()) return { url: "", env: {} };
  const url = await createEmptyDatabase();
  return { url, env: { CHATD_DATABASE_URL: url } };
}

/** The tables in a PostgreSQL database (none after a refused import). */
async function tablesIn(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
    );
    return rows.map((r) => r.tablename);
  } finally {
    await client.end();
  }
}

/** The rows a query answers in a PostgreSQL database. */
async function rowsOf(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A copy of the fixture with one JSON file changed, to make it damaged or foreign. */
function damaged(root: string, file: string, change: (text: string) => string): string {
  const dir = join(root, `export-${Math.random().toString(36).slice(2)}`);
  cpSync(FIXTURE, dir, { recursive: true });
  writeFileSync(join(dir, file), change(readFileSync(join(dir, file), "utf8")));
  return dir;
}

function editJson(
  root: string,
  file: string,
  edit: (data: Record<string, Array<Record<string, unknown>>>) => void,
) {
  return damaged(root, file, (text) => {
    const data = JSON.parse(text) as Record<string, Array<Record<string, unknown>>>;
    edit(data);
    return JSON.stringify(data);
  });
}

describe("chatd import zulip", function () {
  this.timeout(60_000);
  let root: string;
  let dataDir: string;
  let server: TestServer;
  let summary: Record<string, unknown>;
  const as: Record<string, Client> = {};

  before(async function () {
    root = mkdtempSync(join(tmpdir(), "chatd-import-test-"));
    dataDir = join(root, "data");
    const { url, env } = await importTarget();
    const result = await chatd(["--data-dir", dataDir, "import", "zulip", FIXTURE, "--json"], { env });
    expect(result.code, result.stderr).to.equal(0);
    summary = JSON.parse(result.stdout) as Record<string, unknown>;
    for (const [name, email] of [
      ["iago", "iago@acme.example"],
      ["hamlet", "hamlet@acme.example"],
      ["othello", "othello@acme.example"],
    ] as const) {
      const key = await chatd(["--data-dir", dataDir, "api-key", "--email", email, "--json"], { env });
      expect(key.code, key.stderr).to.equal(0);
      as[name] = new Client("", { email, apiKey: (JSON.parse(key.stdout) as { api_key: string }).api_key });
    }
    server = await startTestServer({ database_url: url }, { dataDir });
    for (const name of Object.keys(as)) as[name] = new Client(server.url, as[name]!.credentials);
  });

  after(async () => {
    await server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("prints what it imported", () => {
    expect(summary).to.deep.include({
      realm: { id: 2, name: "Acme Imports", string_id: "acme" },
      users: 7,
      bots: 1,
      channels: 2,
      messages: 6,
      reactions: 3,
      uploads: 1,
      emoji: 1,
    });
  });

  it("keeps users with their ids, roles, bots and deactivations", async () => {
    const body = expectSuccess(await as.iago!.get("/users", { include_custom_profile_fields: true })) as {
      members: Array<Record<string, unknown>>;
    };
    const byId = new Map(body.members.map((m) => [m.user_id as number, m]));
    expect([...byId.keys()].sort((a, b) => a - b)).to.deep.equal([10, 11, 12, 13, 14, 15, 16, 17]);
    expect([10, 11, 12, 13, 15].map((id) => byId.get(id)!.role)).to.deep.equal([100, 200, 300, 400, 600]);
    expect(byId.get(13)).to.include({
      full_name: "King Hamlet",
      timezone: "Europe/Copenhagen",
      is_active: true,
    });
    expect(byId.get(16)).to.include({ full_name: "Yorick", is_active: false });
    expect(byId.get(17)).to.include({ is_bot: true, bot_owner_id: 13, bot_type: 1 });
    expect(byId.get(13)!.profile_data).to.deep.equal({ 1: { value: "+45 1234 5678", rendered_value: null } });
  });

  it("keeps channels, subscriptions and their properties", async () => {
    const streams = expectSuccess(await as.iago!.get("/streams")) as {
      streams: Array<Record<string, unknown>>;
    };
    const names = streams.streams.map((s) => [s.stream_id, s.name, s.invite_only]);
    expect(names).to.deep.include.members([
      [20, "Verona", false],
      [21, "Denmark", true],
    ]);
    const subs = expectSuccess(await as.hamlet!.get("/users/me/subscriptions")) as {
      subscriptions: Array<Record<string, unknown>>;
    };
    const verona = subs.subscriptions.find((s) => s.stream_id === 20)!;
    expect(verona).to.include({ color: "#e79ab5", pin_to_top: true, description: "Where the play is set" });
    expect(subs.subscriptions.map((s) => s.stream_id).sort()).to.deep.equal([20, 21]);
    const othello = expectSuccess(await as.othello!.get("/users/me/subscriptions")) as {
      subscriptions: Array<Record<string, unknown>>;
    };
    expect(othello.subscriptions.map((s) => s.stream_id)).to.deep.equal([20]);
  });

  it("answers each user's messages with their flags, reactions and edits", async () => {
    const hamlet = expectSuccess(await as.hamlet!.get("/messages", ALL)) as { messages: Msg[] };
    expect(hamlet.messages.map((m) => m.id)).to.deep.equal([100, 101, 102, 103, 104, 105]);
    const byId = new Map(hamlet.messages.map((m) => [m.id, m]));
    expect(byId.get(100)!.flags).to.deep.equal(["read"]);
    expect(byId.get(101)!.flags).to.deep.equal(["starred", "mentioned"]);
    expect(byId.get(102)!.flags).to.deep.equal([]);
    expect(byId.get(100)!.last_edit_timestamp).to.equal(T0 + 1010);
    expect(
      byId.get(100)!.reactions.map((r) => [r.emoji_name, r.emoji_code, r.reaction_type, r.user_id]),
    ).to.deep.equal([
      ["smile", "1f604", "unicode_emoji", 14],
      ["green_tick", "1", "realm_emoji", 10],
    ]);
    const othello = expectSuccess(await as.othello!.get("/messages", ALL)) as { messages: Msg[] };
    // Not subscribed to the private Denmark: its message is not Othello's.
    expect(othello.messages.map((m) => m.id)).to.deep.equal([100, 101, 103, 104, 105]);
    expect(othello.messages.find((m) => m.id === 104)!.flags).to.deep.equal(["read", "starred"]);
    const dms = expectSuccess(
      await as.othello!.get("/messages", {
        ...ALL,
        narrow: JSON.stringify([{ operator: "is", operand: "dm" }]),
      }),
    ) as { messages: Msg[] };
    expect(dms.messages.map((m) => m.id)).to.deep.equal([103, 104]);
    const topic = expectSuccess(
      await as.hamlet!.get("/messages", {
        ...ALL,
        narrow: JSON.stringify([
          { operator: "channel", operand: 20 },
          { operator: "topic", operand: "greetings" },
        ]),
      }),
    ) as { messages: Msg[] };
    expect(topic.messages.map((m) => m.id)).to.deep.equal([100, 101, 105]);
  });

  it("serves the upload byte for byte and the custom emoji", async () => {
    const expected = readFileSync(join(FIXTURE, "uploads", PATH_ID));
    const auth = {
      authorization: `Basic ${Buffer.from(`hamlet@acme.example:${as.hamlet!.credentials!.apiKey}`).toString("base64")}`,
    };
    const res = await fetch(new URL(`/user_uploads/${PATH_ID}`, server.url), { headers: auth });
    expect(res.status).to.equal(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(expected)).to.equal(true);
    const emoji = expectSuccess(await as.hamlet!.get("/realm/emoji")) as {
      emoji: Record<string, { name: string; source_url: string }>;
    };
    expect(emoji.emoji["1"]!.name).to.equal("green_tick");
    const image = await fetch(new URL(emoji.emoji["1"]!.source_url, server.url), { headers: auth });
    expect(image.status).to.equal(200);
    const attachments = expectSuccess(await as.hamlet!.get("/attachments")) as {
      attachments: Array<Record<string, unknown>>;
    };
    expect(attachments.attachments.map((a) => [a.id, a.name, a.path_id])).to.deep.equal([
      [1, "notes.txt", PATH_ID],
    ]);
  });

  it("keeps the realm's email domains", async () => {
    const { domains } = expectSuccess(await as.hamlet!.get("/realm/domains")) as { domains: unknown[] };
    expect(domains).to.deep.equal([{ domain: "acme.example", allow_subdomains: true }]);
  });

  it("registers, sends and finds new and old messages by search", async () => {
    const state = expectSuccess(await as.hamlet!.post("/register", {})) as Record<string, unknown>;
    expect(state.realm_name).to.equal("Acme Imports");
    // 101, 102 and 104 lack the read flag.
    expect((state.unread_msgs as { count: number }).count).to.equal(3);
    const sent = expectSuccess(
      await as.othello!.post("/messages", {
        type: "stream",
        to: 20,
        topic: "news",
        content: "a zanzibar voyage",
      }),
    ) as { id: number };
    expect(sent.id).to.be.greaterThan(105);
    const search = (operand: string) =>
      as.hamlet!.get("/messages", { ...ALL, narrow: JSON.stringify([{ operator: "search", operand }]) });
    expect(
      (expectSuccess(await search("zanzibar")) as { messages: Msg[] }).messages.map((m) => m.id),
    ).to.deep.equal([sent.id]);
    expect(
      (expectSuccess(await search("crown")) as { messages: Msg[] }).messages.map((m) => m.id),
    ).to.deep.equal([102]);
  });

  it("imports the export as a .tar.gz with one top-level directory", async () => {
    const archive = join(root, "export.tar.gz");
    await tarCreate({ gzip: true, file: archive, cwd: join(FIXTURE, ".."), portable: true }, [
      "zulip-export",
    ]);
    const target = join(root, "from-tar");
    const { env } = await importTarget();
    const result = await chatd(["--data-dir", target, "import", "zulip", archive, "--json"], { env });
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.include({ messages: 6, uploads: 1 });
  });

  describe("an export without user groups (as converters from other products write)", () => {
    let bare: TestServer;
    let stdout: string;
    const bareAs: Record<string, Client> = {};

    before(async () => {
      const dir = editJson(root, "realm.json", (d) => {
        for (const name of Object.keys(d))
          if (/group/.test(name) && name !== "zerver_directmessagegroup") delete d[name];
        for (const record of [...d.zerver_realm!, ...d.zerver_stream!])
          for (const key of Object.keys(record)) if (key.endsWith("_group")) delete record[key];
      });
      const target = join(root, "bare-data");
      const { url, env } = await importTarget();
      const result = await chatd(["--data-dir", target, "import", "zulip", dir], { env });
      expect(result.code, result.stderr).to.equal(0);
      stdout = result.stdout;
      for (const [name, email] of [
        ["iago", "iago@acme.example"],
        ["hamlet", "hamlet@acme.example"],
        ["guildenstern", "guildenstern@acme.example"],
      ] as const) {
        const key = await chatd(["--data-dir", target, "api-key", "--email", email, "--json"], { env });
        expect(key.code, key.stderr).to.equal(0);
        bareAs[name] = new Client("", {
          email,
          apiKey: (JSON.parse(key.stdout) as { api_key: string }).api_key,
        });
      }
      bare = await startTestServer({ database_url: url }, { dataDir: target });
      for (const name of Object.keys(bareAs)) bareAs[name] = new Client(bare.url, bareAs[name]!.credentials);
    });

    after(async () => {
      await bare?.close();
    });

    it("names the organization in quotes", () => {
      expect(stdout).to.include('Imported the organization "Acme Imports".');
    });

    it("gets the system groups, each user in their role's", async () => {
      const { user_groups } = expectSuccess(await bareAs.iago!.get("/user_groups")) as {
        user_groups: Array<{ name: string; members: number[]; direct_subgroup_ids: number[]; id: number }>;
      };
      const byName = new Map(user_groups.map((g) => [g.name, g]));
      const members = (name: string) => [...byName.get(name)!.members].sort((a, b) => a - b);
      expect(members("role:owners")).to.deep.equal([10]);
      expect(members("role:administrators")).to.deep.equal([11]);
      expect(members("role:moderators")).to.deep.equal([12]);
      // Active members (the deactivated Yorick is not listed), the bot with its role.
      expect(members("role:members")).to.deep.equal([13, 14, 17]);
      expect(members("role:fullmembers")).to.deep.equal([13, 14, 17]);
      expect(members("role:everyone")).to.deep.equal([15]);
      expect(byName.get("role:owners")!.id).to.be.a("number");
      expect(byName.get("role:administrators")!.direct_subgroup_ids).to.deep.equal([
        byName.get("role:owners")!.id,
      ]);
    });

    it("lets a member post to and create a channel, and keeps a guest from creating one", async () => {
      expectSuccess(
        await bareAs.hamlet!.post("/users/me/subscriptions", {
          subscriptions: JSON.stringify([{ name: "member-made" }]),
        }),
      );
      expectSuccess(
        await bareAs.hamlet!.post("/messages", {
          type: "stream",
          to: "Verona",
          topic: "hi",
          content: "posted",
        }),
      );
      const refused = await bareAs.guildenstern!.post("/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: "guest-made" }]),
      });
      expectError(refused, 400, "Not allowed for guest users");
      const { streams } = expectSuccess(await bareAs.iago!.get("/streams", { include_all: true })) as {
        streams: Array<{ name: string }>;
      };
      expect(streams.map((s) => s.name)).to.include("member-made");
      expect(streams.map((s) => s.name)).to.not.include("guest-made");
    });
  });

  describe("refuses and leaves nothing behind", () => {
    const refused = async (
      path: string,
      message: string,
      target = join(root, `t-${Math.random().toString(36).slice(2)}`),
    ) => {
      const { url, env } = await importTarget();
      const result = await chatd(["--data-dir", target, "import", "zulip", path], { env });
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.include(message);
      if (url) expect(await tablesIn(url)).to.deep.equal([]);
      return target;
    };

    it("a file that is not gzip", async () => {
      const file = join(root, "not-an-export.tar.gz");
      writeFileSync(file, "just text");
      const target = await refused(file, `${file} is not a gzip file`);
      expect(existsSync(target)).to.equal(false);
    });

    it("a .tar.gz with an absolute entry name, naming it, leaving no temporary files", async () => {
      // The absolute entry first: node-tar would go on writing the export's files after it.
      const outside = join(root, "abs", "escaped");
      mkdirSync(join(root, "abs"));
      writeFileSync(outside, "out of bounds");
      const archive = join(root, "absolute.tar.gz");
      await tarCreate(
        { gzip: true, file: archive, cwd: join(FIXTURE, ".."), portable: true, preservePaths: true },
        [outside, "zulip-export"],
      );
      const importTmp = mkdtempSync(join(tmpdir(), "chatd-zulip-tmp-"));
      try {
        const target = join(root, `t-${Math.random().toString(36).slice(2)}`);
        const { url, env } = await importTarget();
        const result = await chatd(["--data-dir", target, "import", "zulip", archive], {
          env: { ...env, TMPDIR: importTmp },
        });
        expect(result.code).to.not.equal(0);
        expect(result.stderr).to.include(`${archive} is refused: its entry ${outside}`);
        expect(result.stderr).to.not.include("ENOTEMPTY");
        expect(readdirSync(importTmp)).to.deep.equal([]);
        expect(existsSync(target)).to.equal(false);
        if (url) expect(await tablesIn(url)).to.deep.equal([]);
      } finally {
        rmSync(importTmp, { recursive: true, force: true });
      }
    });

    it("a directory without realm.json", async () => {
      const dir = join(root, "empty-export");
      mkdirSync(dir);
      expect(existsSync(await refused(dir, "no realm.json in the export"))).to.equal(false);
    });

    it("a JSON syntax error, naming the file", async () => {
      const dir = damaged(root, "messages-000001.json", (t) => t.slice(0, -20));
      expect(existsSync(await refused(dir, "messages-000001.json is not valid JSON"))).to.equal(false);
    });

    it("a field of the wrong type, naming the file and the field", async () => {
      const dir = editJson(root, "realm.json", (d) => (d.zerver_userprofile![3]!.full_name = 42));
      expect(
        existsSync(await refused(dir, "realm.json: zerver_userprofile[3].full_name is not a string")),
      ).to.equal(false);
    });

    it("a message pointing at a missing recipient, into an existing empty directory left empty", async () => {
      const dir = editJson(root, "messages-000001.json", (d) => (d.zerver_message![2]!.recipient = 999));
      const target = join(root, "kept-empty");
      mkdirSync(target);
      await refused(dir, "messages-000001.json: zerver_message[2].recipient names recipient 999", target);
      expect(readdirSync(target)).to.deep.equal([]);
    });

    it("a failing import into a migrated PostgreSQL database keeps its tables and secrets", async function () {
      if (!onPostgres()) this.skip();
      const url = await createEmptyDatabase();
      const env = { CHATD_DATABASE_URL: url };
      const migrated = await chatd(["--data-dir", join(root, "migrated-first"), "migrate"], { env });
      expect(migrated.code, migrated.stderr).to.equal(0);
      const secrets = () => rowsOf(url, "SELECT * FROM server_secrets ORDER BY 1");
      const tables = (await tablesIn(url)).sort();
      const seeded = await secrets();
      expect(tables).to.include.members(["server_secrets", "messages", "realm_domains"]);
      expect(seeded).to.not.be.empty;
      const dir = editJson(root, "messages-000001.json", (d) => (d.zerver_message![2]!.recipient = 999));
      const target = join(root, `t-${Math.random().toString(36).slice(2)}`);
      const result = await chatd(["--data-dir", target, "import", "zulip", dir], { env });
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.include("zerver_message[2].recipient names recipient 999");
      expect((await tablesIn(url)).sort()).to.deep.equal(tables);
      expect(await secrets()).to.deep.equal(seeded);
      expect(await rowsOf(url, "SELECT id FROM realms")).to.deep.equal([]);
    });

    it("a data directory that is not empty, untouched", async () => {
      const target = join(root, "occupied");
      mkdirSync(target);
      writeFileSync(join(target, "keep.txt"), "mine");
      await refused(FIXTURE, "is not empty", target);
      expect(readdirSync(target)).to.deep.equal(["keep.txt"]);
      expect(readFileSync(join(target, "keep.txt"), "utf8")).to.equal("mine");
    });
  });
});
