import { cliDatabaseEnv } from "../helpers/postgres.js";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import {
  BIN,
  chatd,
  exited,
  freePort,
  initDataDir,
  startServerProcess,
  type CliResult,
  type ServerProcess,
} from "../helpers/cli.js";

/** A start-up failure: exit 2, one line on stderr, nothing on stdout, no stack trace. */
function expectCleanFailure(res: CliResult, message: RegExp): void {
  expect(res.code, res.stderr).to.equal(2);
  expect(res.stdout).to.equal("");
  const lines = res.stderr.trim().split("\n");
  expect(lines, res.stderr).to.have.length(1);
  expect(lines[0]).to.match(message);
}

/** Runs a server command that must exit by itself; kills it (failing the test) after 10 s. */
function serverCommand(args: string[], env: NodeJS.ProcessEnv = {}, uid?: number): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, ...cliDatabaseEnv([...args], env), CHATD_LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    void exited(child).then((code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("server start-up failures", function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess | null = null;
  let blocker: Server | null = null;

  beforeEach(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-startup-"));
  });
  afterEach(async function () {
    await server?.stop();
    server = null;
    await new Promise((r) => (blocker ? blocker.close(r) : r(undefined)));
    blocker = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const command of ["serve", "start"]) {
    it(`${command}: a port in use exits 2 with one line, having closed what it opened`, async function () {
      initDataDir(dataDir);
      const port = await freePort();
      blocker = createServer();
      await new Promise<void>((r) => blocker!.listen(port, "127.0.0.1", r));
      const res = await serverCommand(["--data-dir", dataDir, command, "--port", String(port)]);
      expectCleanFailure(
        res,
        new RegExp(
          `^error: port ${port} on 127\\.0\\.0\\.1 is already in use .*choose another port with --port$`,
        ),
      );
      // --log-level debug shows where it failed.
      const debug = await serverCommand([
        "--data-dir",
        dataDir,
        command,
        "--port",
        String(port),
        "--log-level",
        "debug",
      ]);
      expect(debug.code).to.equal(2);
      expect(debug.stderr).to.match(/\n\s+at /);
      // The lock and the database were released: a server starts on the same data directory.
      server = await startServerProcess(dataDir);
    });
  }

  it("a second server on the same data directory exits 2; the first keeps serving", async function () {
    initDataDir(dataDir);
    server = await startServerProcess(dataDir);
    const second = await serverCommand(["--data-dir", dataDir, "serve", "--port", String(await freePort())]);
    expectCleanFailure(
      second,
      new RegExp(`^error: another chatd server is already running on the data directory ${dataDir}$`),
    );
    const start = await serverCommand(["--data-dir", dataDir, "start", "--port", String(await freePort())]);
    expect(start.code).to.equal(2);
    expect((await fetch(`${server.url}/api/v1/server_settings`)).status).to.equal(200);
    // Admin commands still work beside it.
    expect((await chatd(["--data-dir", dataDir, "user", "list", "--json"])).code).to.equal(0);
  });

  it("an unwritable data directory exits 2 with one line", async function () {
    // Root may write anywhere: run the server as nobody then.
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    chmodSync(dataDir, 0o755);
    const readOnly = join(dataDir, "read-only");
    mkdirSync(readOnly, { mode: 0o555 });
    chmodSync(readOnly, 0o555);
    const inside = await serverCommand(["--data-dir", readOnly, "start", "--port", "0"], {}, uid);
    expectCleanFailure(
      inside,
      new RegExp(`^error: the data directory ${readOnly} is not writable: permission denied$`),
    );
    const below = await serverCommand(
      ["--data-dir", join(readOnly, "data"), "start", "--port", "0"],
      {},
      uid,
    );
    expectCleanFailure(
      below,
      new RegExp(`^error: cannot create the data directory ${readOnly}/data: permission denied$`),
    );
  });

  describe("URL settings are checked at start", function () {
    const refused =
      /external_url \(.+\) must be an absolute http\(s\) URL, e\.g\. https:\/\/chat\.example\.com; got "chat\.example\.com"/;

    it("refuses an external_url without a scheme, from a flag, the environment or settings.json", async function () {
      initDataDir(dataDir);
      const fromFlag = await serverCommand([
        "--data-dir",
        dataDir,
        "serve",
        "--port",
        "0",
        "--external-url",
        "chat.example.com",
      ]);
      expect(fromFlag.code).to.equal(1);
      expect(fromFlag.stderr).to.match(refused);
      const fromEnv = await serverCommand(["--data-dir", dataDir, "serve", "--port", "0"], {
        CHATD_EXTERNAL_URL: "chat.example.com",
      });
      expect(fromEnv.stderr).to.match(refused);
      writeFileSync(join(dataDir, "settings.json"), JSON.stringify({ external_url: "chat.example.com" }));
      const fromFile = await serverCommand(["--data-dir", dataDir, "serve", "--port", "0"]);
      expect(fromFile.code).to.equal(1);
      expect(fromFile.stderr).to.match(refused);
      for (const bad of ["ftp://chat.example.com", "https://", "/chat"]) {
        const res = await chatd(["--data-dir", dataDir, "user", "list"], {
          env: { CHATD_EXTERNAL_URL: bad },
        });
        expect(res.code, bad).to.equal(1);
        expect(res.stderr).to.match(/must be an absolute http\(s\) URL/);
      }
    });

    it("init refuses one too, creating nothing", async function () {
      const res = await chatd([
        "--data-dir",
        join(dataDir, "new"),
        "init",
        "--no-input",
        "--external-url",
        "chat.example.com",
      ]);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(refused);
      expect(existsSync(join(dataDir, "new"))).to.equal(false);
    });

    it("accepts http and https URLs, and an empty one", async function () {
      for (const good of ["https://chat.example.com", "http://10.0.0.5:9991/", ""]) {
        const res = await chatd(["--data-dir", dataDir, "migrate", "--status"], {
          env: { CHATD_EXTERNAL_URL: good },
        });
        expect(res.code, `${good}: ${res.stderr}`).to.equal(0);
      }
    });
  });
});
