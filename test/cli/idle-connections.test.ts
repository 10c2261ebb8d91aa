import { expect } from "chai";
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initDataDir, startServerProcess, type ServerProcess } from "../helpers/cli.js";
import { onPostgres } from "../helpers/postgres.js";

/** The database connections a process holds open: its descriptors on the SQLite file. */
const openDatabaseFiles = (pid: number) =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith("/chatd.sqlite3");
    } catch {
      return false; // closed meanwhile
    }
  }).length;

describe("an idle server's database connections", function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess | undefined;

  before(function () {
    // SQLite's file, counted in /proc (Linux).
    if (onPostgres() || !existsSync("/proc/self/fd")) this.skip();
    dataDir = mkdtempSync(join(tmpdir(), "chatd-idle-"));
    initDataDir(dataDir);
  });
  after(async function () {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("are the writer and one reader after start-up: the due timers' first runs share it", async function () {
    server = await startServerProcess(dataDir);
    expect((await fetch(`${server.url}/api/v1/server_settings`)).status).to.equal(200);
    expect(openDatabaseFiles(server.child.pid!)).to.equal(2);
  });
});
