import { postgresOnly, sqliteOnly } from "../helpers/postgres.js";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import sharp from "sharp";
import { cliIn } from "../helpers/cli.js";
import { cast, createChannel } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer } from "../helpers/server.js";
import { getFile, postUpload, upload } from "../helpers/uploads.js";

describe("chatd backup with uploads", function () {
  const dirs: string[] = [];
  after(function () {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("on PostgreSQL, points to pg_dump and writes nothing", async function () {
    postgresOnly(this, "the SQLite backup is tested below");
    const server = await startTestServer({}, { keepDataDir: true });
    dirs.push(server.dataDir);
    await server.factory.realm();
    await server.stop();
    const target = join(server.dataDir, "backup.sqlite3");
    const run = cliIn(server.dataDir)(["backup", "--to", target], {
      env: { CHATD_DATABASE_URL: server.app.config.database_url },
    });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain("back it up with pg_dump");
    expect(run.stderr).not.to.contain(new URL(server.app.config.database_url).password);
    expect(existsSync(target)).to.equal(false);
  });

  it("backs up the database and the files it names while the server runs; restoring both serves them", async function () {
    sqliteOnly(this, "chatd backup copies the SQLite file; on PostgreSQL it points to pg_dump");
    this.timeout(60_000);
    const server = await startTestServer({}, { keepDataDir: true });
    dirs.push(server.dataDir);
    const u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
    const bytes = Buffer.from("backed up, byte for byte \u00e9");
    const url = await upload(u.hamlet, "kept.txt", bytes);
    await sendToChannel(u.hamlet, "Denmark", "t", `[kept](${url})`);
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#00f" } })
      .png()
      .toBuffer();
    const avatar = expectSuccess(await postUpload(u.hamlet, "a.png", png, { path: "/users/me/avatar" }))
      .avatar_url as string;
    expectSuccess(await postUpload(u.hamlet, "e.png", png, { path: "/realm/emoji/kept_emoji" }));
    const emoji = Object.values(
      expectSuccess(await u.hamlet.client.get("/realm/emoji")).emoji as Record<
        string,
        { source_url: string }
      >,
    )[0]!.source_url;

    const backupFile = join(server.dataDir, "backup.sqlite3");
    const run = cliIn(server.dataDir)(["backup", "--to", backupFile], { env: { CHATD_LOG_LEVEL: "silent" } });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.trim().split("\n")).to.deep.equal([backupFile, `${backupFile}.uploads`]);
    expect(existsSync(join(server.dataDir, "uploads", "backup.lock"))).to.equal(false);
    await server.close();

    // The README's restore: the database as chatd.sqlite3, the files as uploads/.
    const restoredDir = mkdtempSync(join(tmpdir(), "chatd-restored-"));
    dirs.push(restoredDir);
    cpSync(backupFile, join(restoredDir, "chatd.sqlite3"));
    cpSync(`${backupFile}.uploads`, join(restoredDir, "uploads"), { recursive: true });
    const restored = await startTestServer({}, { dataDir: restoredDir, keepDataDir: true });
    try {
      const file = await getFile(restored.url, url, u.othello);
      expect(file.status).to.equal(200);
      expect(file.bytes.equals(bytes)).to.equal(true);
      expect((await getFile(restored.url, url, u.cordelia)).status).to.equal(200);
      expect((await getFile(restored.url, avatar, null)).status).to.equal(200);
      expect((await getFile(restored.url, emoji, null)).status).to.equal(200);
    } finally {
      await restored.close();
    }
  });
});
