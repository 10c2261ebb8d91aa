import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import * as tar from "tar";
import { runDueRealmExports } from "../../src/actions/realm-export.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register } from "../helpers/events.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { pathIdOf, upload } from "../helpers/uploads.js";

type Json = Record<string, unknown>;
type Rows = Json[];

describe("data exports: /export/realm", function () {
  let server: TestServer;
  let u: Cast;
  let work: string;
  const ids: Record<string, number> = {};
  const uploadBytes = Buffer.from("exported bytes \u{1F4E6} of a text file\n");
  let uploadPath = "";

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    work = mkdtempSync(join(tmpdir(), "chatd-export-test-"));
    const url = await upload(u.hamlet, "notes.txt", uploadBytes, "text/plain");
    uploadPath = pathIdOf(url);
    await createChannel(u.iago, "public room", [u.iago, u.hamlet, u.othello]);
    await createChannel(u.iago, "secret room", [u.iago, u.hamlet], { invite_only: true });
    ids.public = await sendToChannel(u.hamlet, "public room", "plans", `see [notes](${url})`);
    expectSuccess(
      await u.hamlet.client.patch(`/messages/${ids.public}`, { content: `edited: see [notes](${url})` }),
    );
    expectSuccess(
      await u.othello.client.post(`/messages/${ids.public}/reactions`, { emoji_name: "octopus" }),
    );
    expectSuccess(
      await u.hamlet.client.post("/messages/flags", { messages: [ids.public], op: "add", flag: "starred" }),
    );
    ids.secret = await sendToChannel(u.iago, "secret room", "hush", "private channel message");
    ids.dm = await sendDirect(u.hamlet, [u.othello], "a direct message");
    ids.groupDm = await sendDirect(u.othello, [u.hamlet, u.cordelia], "a group direct message");
    ids.othelloDm = await sendDirect(u.othello, [u.cordelia], "between two who never consent");
  });
  after(async function () {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** Waits (bounded) for the worker to finish export `id`, returns its listing. */
  async function finished(id: number): Promise<Json> {
    for (let i = 0; i < 400; i++) {
      const { exports } = expectSuccess(await u.iago.client.get("/export/realm")) as { exports: Rows };
      const row = exports.find((e) => e.id === id);
      if (row && row.pending === false) return row;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`export ${id} did not finish`);
  }

  /** Downloads the archive at `exportUrl` and unpacks it; returns its one directory. */
  async function unpack(exportUrl: string, name: string): Promise<string> {
    const path = new URL(exportUrl).pathname;
    const res = await fetch(new URL(path, server.url));
    expect(res.status).to.equal(200);
    // The whole organization's data: no shared cache may keep it after it is deleted.
    expect(res.headers.get("cache-control")).to.equal("private, no-store");
    const file = join(work, `${name}.tar.gz`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const dir = join(work, name);
    rmSync(dir, { recursive: true, force: true });
    await import("node:fs/promises").then((fs) => fs.mkdir(dir));
    await tar.x({ file, cwd: dir });
    const top = readdirSync(dir);
    expect(top).to.have.length(1);
    return join(dir, top[0]!);
  }

  const readJson = (dir: string, file: string) =>
    JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, Rows>;
  const messagesOf = (dir: string) => {
    const files = readdirSync(dir)
      .filter((f) => /^messages-\d{6}\.json$/.test(f))
      .sort();
    const out = { zerver_message: [] as Rows, zerver_usermessage: [] as Rows };
    for (const f of files) {
      const data = readJson(dir, f);
      out.zerver_message.push(...data.zerver_message!);
      out.zerver_usermessage.push(...data.zerver_usermessage!);
    }
    return out;
  };

  function allText(dir: string): string {
    let text = "";
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      text += statSync(path).isDirectory() ? allText(path) : readFileSync(path, "latin1");
    }
    return text;
  }

  async function expectNoSecrets(dir: string) {
    const text = allText(dir);
    for (const user of Object.values(u)) expect(text).not.to.include(user.apiKey);
    const hashes = await server.app
      .knex("users")
      .whereNotNull("password_hash")
      .pluck<string[]>("password_hash");
    expect(hashes.length).to.be.greaterThan(0);
    for (const hash of hashes) expect(text).not.to.include(hash);
    expect(text).not.to.include("password_hash");
  }

  it("refuses members and moderators, starting nothing", async function () {
    for (const user of [u.hamlet, u.prospero, u.polonius]) {
      expectError(
        await user.client.post("/export/realm", {}),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expectError(
        await user.client.get("/export/realm"),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
      expectError(
        await user.client.get("/export/realm/consents"),
        400,
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
    }
    expectError(await u.iago.client.post("/export/realm", { export_type: 3 }), 400, "Invalid export_type");
    expect(await server.app.knex("realm_exports").count<Array<{ n: number }>>({ n: "*" })).to.deep.equal([
      { n: 0 },
    ]);
  });

  it("a public export: public channels only, flags, reactions, uploads; no private data or secrets; the event; run once", async function () {
    const queue = (await register(u.iago.client, { event_types: JSON.stringify(["realm_export"]) }))
      .queue_id as string;
    const { id } = expectSuccess(await u.iago.client.post("/export/realm", { export_type: 1 })) as {
      id: number;
    };
    const row = await finished(id);
    expect(row).to.include({
      id,
      acting_user_id: u.iago.id,
      export_type: 1,
      pending: false,
      deleted_timestamp: null,
      failed_timestamp: null,
    });
    expect(row.export_url).to.match(
      /^http:\/\/chatd\.test\/user_avatars\/\d+\/exports\/[A-Za-z0-9_-]{24}\/zulip-export-[0-9a-f]{8}\.tar\.gz$/,
    );
    const events = (await pendingEvents(u.iago.client, queue)).filter((e) => e.type === "realm_export");
    expect(events[0]!.exports).to.deep.include({ ...row, pending: true, export_url: null });
    expect(events.at(-1)!.exports).to.deep.equal([row]);

    // Exactly once: another run of the worker finds nothing to do.
    await runDueRealmExports(server.app);
    const keys: string[] = [];
    for await (const entry of server.app.uploads.list("avatars/"))
      if (entry.key.includes("/exports/")) keys.push(entry.key);
    expect(keys).to.have.length(1);

    const dir = await unpack(row.export_url as string, "public");
    const realm = readJson(dir, "realm.json");
    const { zerver_message: messages, zerver_usermessage: userMessages } = messagesOf(dir);
    const messageIds = messages.map((m) => m.id);
    expect(messageIds).to.include(ids.public);
    for (const hidden of [ids.secret, ids.dm, ids.groupDm]) expect(messageIds).not.to.include(hidden);
    const edited = messages.find((m) => m.id === ids.public)!;
    expect(edited.content).to.match(/^edited: /);
    expect(edited.subject).to.equal("plans");
    expect(edited.sender).to.equal(u.hamlet.id);
    expect(JSON.parse(edited.edit_history as string)[0].prev_content).to.match(/^see /);
    const hamletFlags = userMessages.find((m) => m.message === ids.public && m.user_profile === u.hamlet.id)!;
    const stored = await server.app
      .knex("user_messages")
      .where({ user_id: u.hamlet.id, message_id: ids.public })
      .first<{ flags: number }>("flags");
    expect(hamletFlags.flags_mask).to.equal(stored.flags);
    expect((hamletFlags.flags_mask as number) & 2).to.equal(2); // starred
    const othelloFlags = userMessages.find(
      (m) => m.message === ids.public && m.user_profile === u.othello.id,
    )!;
    expect(othelloFlags.flags_mask).to.equal(0);
    expect(realm.zerver_reaction).to.deep.include.members([]);
    expect(
      realm.zerver_reaction!.map((r) => [r.message, r.user_profile, r.emoji_name, r.reaction_type]),
    ).to.deep.equal([[ids.public, u.othello.id, "octopus", "unicode_emoji"]]);
    expect(realm.zerver_huddle).to.deep.equal([]);
    expect(realm.zerver_scheduledmessage).to.deep.equal([]);
    const streams = realm.zerver_stream!.map((s) => s.name);
    expect(streams).to.include.members(["public room", "secret room"]);
    const user = realm.zerver_userprofile!.find((p) => p.id === u.hamlet.id)!;
    expect(user).to.include({ email: u.hamlet.email, full_name: u.hamlet.fullName, is_active: true });
    expect(user).not.to.have.property("password_hash");
    const attachments = readJson(dir, "attachment.json").zerver_attachment!;
    expect(attachments.map((a) => [a.path_id, a.messages])).to.deep.equal([[uploadPath, [ids.public]]]);
    expect(readFileSync(join(dir, "uploads", ...uploadPath.split("/")))).to.deep.equal(uploadBytes);
    const records = JSON.parse(readFileSync(join(dir, "uploads", "records.json"), "utf8")) as Rows;
    expect(records.map((r) => [r.path, r.user_profile_id, r.size])).to.deep.equal([
      [uploadPath, u.hamlet.id, uploadBytes.length],
    ]);
    await expectNoSecrets(dir);
  });

  it("a consent export needs a consenting owner; then has consenting members' DMs and flags only", async function () {
    expectError(
      await u.iago.client.post("/export/realm", { export_type: 2 }),
      400,
      "Make sure at least one Organization Owner is consenting to the export.",
    );
    expect(await server.app.knex("realm_exports").count<Array<{ n: number }>>({ n: "*" })).to.deep.equal([
      { n: 1 },
    ]);
    const queue = (await register(u.iago.client, { event_types: JSON.stringify(["realm_export_consent"]) }))
      .queue_id as string;
    for (const user of [u.desdemona, u.hamlet]) {
      expectSuccess(await user.client.patch("/settings", { allow_private_data_export: true }));
    }
    const consentEvents = (await pendingEvents(u.iago.client, queue)).filter(
      (e) => e.type === "realm_export_consent",
    );
    expect(consentEvents.map((e): unknown[] => [e.user_id, e.consented])).to.deep.equal([
      [u.desdemona.id, true],
      [u.hamlet.id, true],
    ]);
    const consents = expectSuccess(await u.iago.client.get("/export/realm/consents")).export_consents as Rows;
    expect(consents).to.deep.include({ user_id: u.hamlet.id, consented: true });
    expect(consents).to.deep.include({ user_id: u.othello.id, consented: false });
    const { id } = expectSuccess(await u.iago.client.post("/export/realm", { export_type: 2 })) as {
      id: number;
    };
    const row = await finished(id);
    expect(row.export_type).to.equal(2);
    const dir = await unpack(row.export_url as string, "consent");
    const { zerver_message: messages, zerver_usermessage: userMessages } = messagesOf(dir);
    const messageIds = messages.map((m) => m.id);
    // Hamlet consents: his DM, his group DM and the private channel he is in (history public).
    for (const shown of [ids.public, ids.dm, ids.groupDm, ids.secret]) expect(messageIds).to.include(shown);
    expect(messageIds).not.to.include(ids.othelloDm);
    const owners = new Set(userMessages.map((m) => m.user_profile));
    expect(owners.has(u.hamlet.id)).to.equal(true);
    for (const owner of owners) expect([u.desdemona.id, u.hamlet.id]).to.include(owner);
    const realm = readJson(dir, "realm.json");
    expect(realm.zerver_huddle).to.have.length(1);
    const dummy = realm.zerver_userprofile_mirrordummy!.find((p) => p.id === u.othello.id)!;
    expect(dummy).to.include({ is_mirror_dummy: true, is_active: false });
    await expectNoSecrets(dir);

    // Deleting it: the file goes, the listing says when.
    expectSuccess(await u.iago.client.delete(`/export/realm/${id}`));
    const after = (expectSuccess(await u.iago.client.get("/export/realm")).exports as Rows).find(
      (e) => e.id === id,
    )!;
    expect(after.export_url).to.equal(null);
    expect(after.deleted_timestamp).to.be.a("number");
    expect((await fetch(new URL(new URL(row.export_url as string).pathname, server.url))).status).to.equal(
      404,
    );
    expectError(await u.iago.client.delete(`/export/realm/${id}`), 400, "Export already deleted");
    expectError(
      await u.hamlet.client.delete(`/export/realm/${id}`),
      400,
      "Must be an organization administrator",
      "UNAUTHORIZED_PRINCIPAL",
    );
  });

  it("a failed export is listed as failed; five exports in seven days, as Zulip", async function () {
    // A failed export: the listing says when, with no URL; there is nothing to delete.
    const uploads = server.app.uploads;
    const putFile = uploads.putFile.bind(uploads);
    uploads.putFile = () => Promise.reject(new Error("disk full"));
    let failed: Record<string, unknown>;
    try {
      const { id } = expectSuccess(await u.iago.client.post("/export/realm", {})) as { id: number };
      failed = await finished(id);
    } finally {
      uploads.putFile = putFile;
    }
    expect(failed).to.include({ pending: false, export_url: null, deleted_timestamp: null });
    expect(failed.failed_timestamp).to.be.a("number");
    expectError(
      await u.iago.client.delete(`/export/realm/${String(failed.id)}`),
      400,
      "Export failed, nothing to delete",
    );
    // Three so far; two more, then the sixth is refused with nothing recorded.
    for (let i = 0; i < 2; i++) {
      const { id } = expectSuccess(await u.iago.client.post("/export/realm", {})) as { id: number };
      await finished(id);
    }
    expectError(await u.iago.client.post("/export/realm", {}), 400, "Exceeded rate limit.");
    expect(await server.app.knex("realm_exports").count<Array<{ n: number }>>({ n: "*" })).to.deep.equal([
      { n: 5 },
    ]);
  });
});
