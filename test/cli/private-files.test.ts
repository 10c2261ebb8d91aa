import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { onPostgres, sqliteOnly } from "../helpers/postgres.js";
import { chatd, initDataDir, startServerProcess, type ServerProcess } from "../helpers/cli.js";

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("private files", function () {
  this.timeout(60_000);
  let root: string;
  let server: ServerProcess | null = null;
  let umask: number;

  beforeEach(function () {
    root = mkdtempSync(join(tmpdir(), "chatd-private-"));
    // The usual umask, which leaves new files readable by everyone; children inherit it.
    umask = process.umask(0o022);
  });
  afterEach(async function () {
    await server?.stop();
    server = null;
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  it("the data directory is 0700 and every file chatd writes 0600, whatever the umask", async function () {
    const dataDir = join(root, "nested", "data");
    initDataDir(dataDir, ["--external-url", "https://chat.example.com"]);
    expect(mode(dataDir)).to.equal("700");
    expect(mode(join(root, "nested"))).to.equal("700");
    // On PostgreSQL the database is not in the data directory; the rest of it is.
    if (!onPostgres()) expect(mode(join(dataDir, "chatd.sqlite3"))).to.equal("600");
    expect(mode(join(dataDir, "settings.json"))).to.equal("600");

    server = await startServerProcess(dataDir);
    // While a server runs: the WAL and its index, and the server's lock file.
    const running = onPostgres() ? ["chatd.lock"] : ["chatd.sqlite3-wal", "chatd.sqlite3-shm", "chatd.lock"];
    for (const file of running) {
      expect(existsSync(join(dataDir, file)), file).to.equal(true);
    }
    // Files 0600; directories (uploads/) 0700, like the data directory itself.
    for (const file of readdirSync(dataDir)) {
      const path = join(dataDir, file);
      expect(mode(path), file).to.equal(statSync(path).isDirectory() ? "700" : "600");
    }

    // chatd backup copies the SQLite file; on PostgreSQL it points to pg_dump.
    if (onPostgres()) return;
    const target = join(root, "backup.sqlite3");
    const backup = await chatd(["--data-dir", dataDir, "backup", "--to", target]);
    expect(backup.code, backup.stderr).to.equal(0);
    expect(mode(target)).to.equal("600");
    expect(mode(`${target}.settings.json`)).to.equal("600");
  });

  it("backup copies settings.json beside the database, and both restore as a data directory", async function () {
    sqliteOnly(this, "chatd backup copies the SQLite file; on PostgreSQL it points to pg_dump");
    const dataDir = join(root, "data");
    const owner = initDataDir(dataDir, ["--external-url", "https://chat.example.com"]);
    const target = join(root, "backup.sqlite3");
    const backup = await chatd(["--data-dir", dataDir, "backup", "--to", target, "--json"]);
    expect(backup.code, backup.stderr).to.equal(0);
    expect(JSON.parse(backup.stdout)).to.deep.equal({
      database: target,
      settings: `${target}.settings.json`,
    });
    expect(readFileSync(`${target}.settings.json`, "utf8")).to.equal(
      readFileSync(join(dataDir, "settings.json"), "utf8"),
    );
    // Refuses to overwrite either file.
    const again = await chatd(["--data-dir", dataDir, "backup", "--to", target]);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/already exists/);

    // Without settings.json there is nothing to copy, and the output says only the database.
    const bare = join(root, "bare");
    initDataDir(bare);
    const bareTarget = join(root, "bare.sqlite3");
    const bareBackup = await chatd(["--data-dir", bare, "backup", "--to", bareTarget]);
    expect(bareBackup.stdout).to.equal(`${bareTarget}\n`);
    expect(existsSync(`${bareTarget}.settings.json`)).to.equal(false);

    // Restoring: the two files become chatd.sqlite3 and settings.json of a data directory.
    const restored = join(root, "restored");
    mkdirSync(restored);
    copyFileSync(target, join(restored, "chatd.sqlite3"));
    copyFileSync(`${target}.settings.json`, join(restored, "settings.json"));
    const shown = await chatd([
      "--data-dir",
      restored,
      "user",
      "show",
      "--email",
      `user${owner.user_id}@chat.example.com`,
    ]);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.contain(owner.email);
  });
});
