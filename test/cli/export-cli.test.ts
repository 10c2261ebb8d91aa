import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import * as tar from "tar";
import { cliIn } from "../helpers/cli.js";
import { cast, createChannel } from "../helpers/channels.js";
import { expectSuccess } from "../helpers/client.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { sqliteOnly } from "../helpers/postgres.js";
import { startTestServer } from "../helpers/server.js";
import { pathIdOf, upload } from "../helpers/uploads.js";

type Rows = Array<Record<string, unknown>>;

describe("chatd export", function () {
  const dirs: string[] = [];
  after(function () {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("writes a private Zulip-format archive beside the running server; refuses an existing file", async function () {
    sqliteOnly(this, "the command line runs against the test server's SQLite data directory");
    this.timeout(60_000);
    const server = await startTestServer({}, { keepDataDir: true });
    dirs.push(server.dataDir);
    const u = cast(await server.factory.realm());
    const bytes = Buffer.from("bytes the export keeps\n");
    const url = await upload(u.hamlet, "kept.txt", bytes, "text/plain");
    await createChannel(u.iago, "exported", [u.iago, u.hamlet]);
    const channelMessage = await sendToChannel(u.hamlet, "exported", "topic", `file: [kept](${url})`);
    expectSuccess(await u.iago.client.post(`/messages/${channelMessage}/reactions`, { emoji_name: "tada" }));
    const dm = await sendDirect(u.hamlet, [u.othello], "direct words");
    const work = mkdtempSync(join(tmpdir(), "chatd-export-cli-"));
    dirs.push(work);
    const cli = cliIn(server.dataDir);

    const output = join(work, "realm-export.tar.gz");
    const run = cli(["export", "--output", output, "--json"]);
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(summary).to.include({ output, export_type: 3, uploads: 1, reactions: 1 });
    expect(statSync(output).mode & 0o777).to.equal(0o600);

    const dir = join(work, "unpacked");
    mkdirSync(dir);
    await tar.x({ file: output, cwd: dir });
    expect(readdirSync(dir)).to.deep.equal(["realm-export"]);
    const top = join(dir, "realm-export");
    expect(readdirSync(top).sort()).to.include.members([
      "attachment.json",
      "avatars",
      "emoji",
      "messages-000001.json",
      "realm.json",
      "uploads",
    ]);
    const messages = (
      JSON.parse(readFileSync(join(top, "messages-000001.json"), "utf8")) as Record<string, Rows>
    ).zerver_message!;
    expect(messages.map((m) => m.id)).to.include.members([channelMessage, dm]);
    expect(summary.messages).to.equal(messages.length);
    expect(readFileSync(join(top, "uploads", ...pathIdOf(url).split("/")))).to.deep.equal(bytes);
    const realmJson = readFileSync(join(top, "realm.json"), "utf8");
    for (const user of Object.values(u)) expect(realmJson).not.to.include(user.apiKey);
    expect(realmJson).not.to.include("password_hash");

    const again = cli(["export", "--output", output]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain("already exists");

    const publicOutput = join(work, "public.tar.gz");
    const pub = cli(["export", "--public", "--output", publicOutput]);
    expect(pub.code, pub.stderr).to.equal(0);
    expect(pub.stdout).to.contain(publicOutput);
    const publicDir = join(work, "public-unpacked");
    mkdirSync(publicDir);
    await tar.x({ file: publicOutput, cwd: publicDir });
    const publicMessages = (
      JSON.parse(readFileSync(join(publicDir, "public", "messages-000001.json"), "utf8")) as Record<
        string,
        Rows
      >
    ).zerver_message!;
    expect(publicMessages.map((m) => m.id)).to.include(channelMessage);
    expect(publicMessages.map((m) => m.id)).not.to.include(dm);
    // Nothing is left beside the output (the snapshot and the work directory are removed).
    expect(readdirSync(work).filter((f) => f.startsWith("."))).to.deep.equal([]);
    expect(existsSync(output)).to.equal(true);
    await server.close();
  });
});
