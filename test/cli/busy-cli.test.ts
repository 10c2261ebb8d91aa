import { dataDirConfig, onPostgres } from "../helpers/postgres.js";
import { WRITE_LOCK_KEY } from "../../src/db/pg-connection.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { createKnex } from "../../src/db/knex.js";
import {
  basicAuth,
  chatd,
  chatdSync,
  initDataDir,
  OWNER,
  startServerProcess,
  type CliResult,
  type ServerProcess,
} from "../helpers/cli.js";

/** Everything secret the database holds: password hashes and API key hashes. */
async function storedSecrets(dataDir: string): Promise<string[]> {
  const knex = createKnex(dataDirConfig(dataDir));
  try {
    const users = await knex("users").whereNotNull("password_hash").pluck<string[]>("password_hash");
    const keys = await knex("api_keys").pluck<string[]>("key_hash");
    return [...users, ...keys];
  } finally {
    await knex.destroy();
  }
}

/**
 * Steady load: `workers` loops each sending up to `perWorker` messages a second (as
 * fast as the server answers, if slower) until stopped. Capped, so that on a fast
 * machine the load leaves the commands under test some CPU.
 */
function sendLoad(server: ServerProcess, auth: Record<string, string>, workers: number, perWorker = 25) {
  let running = true;
  let sent = 0;
  const failures: string[] = [];
  const loops = Array.from({ length: workers }, async (_, w) => {
    while (running) {
      const started = Date.now();
      const res = await fetch(`${server.url}/api/v1/messages`, {
        method: "POST",
        headers: auth,
        body: new URLSearchParams({ type: "stream", to: "load", topic: `load ${w}`, content: "busy" }),
      });
      if (res.ok) sent++;
      else failures.push(`${res.status} ${await res.text()}`);
      const pause = 1000 / perWorker - (Date.now() - started);
      if (pause > 0) await new Promise((r) => setTimeout(r, pause));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return { sent, failures };
    },
  };
}

/**
 * Another process (here: the test) takes the write lock every writer takes first: SQLite's
 * (BEGIN IMMEDIATE) or PostgreSQL's advisory lock. Writers wait for it at most
 * db_lock_timeout_ms (its alias sqlite_busy_timeout_ms here; on PostgreSQL through lock_timeout).
 */
const TAKE_WRITE_LOCK = onPostgres()
  ? `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`
  : "BEGIN IMMEDIATE";

describe("admin commands beside a busy server", function () {
  this.timeout(300_000);
  let dataDir: string;
  let server: ServerProcess | null = null;

  beforeEach(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-busy-"));
  });
  afterEach(async function () {
    await server?.stop();
    server = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => chatd(["--data-dir", dataDir, ...args]);

  it("every write command succeeds 20 times while the server handles a steady send load", async function () {
    // About 300 command processes: minutes on a loaded two-core machine.
    this.timeout(900_000);
    const owner = initDataDir(dataDir);
    const passwords = [OWNER.password];
    for (const name of ["hamlet", "iago", "horatio"]) {
      passwords.push(`${name}-first`);
      const created = chatdSync([
        "--data-dir",
        dataDir,
        "user",
        "create",
        "--no-input",
        "--email",
        `${name}@zulip.test`,
        "--full-name",
        name,
        "--password",
        `${name}-first`,
      ]);
      expect(created.code, created.stderr).to.equal(0);
    }
    server = await startServerProcess(dataDir, { args: ["--log-level", "debug"] });
    const auth = basicAuth(owner.email, owner.api_key);
    const subscribed = await fetch(`${server.url}/api/v1/users/me/subscriptions`, {
      method: "POST",
      headers: auth,
      body: new URLSearchParams({ subscriptions: JSON.stringify([{ name: "load" }]) }),
    });
    expect(subscribed.status).to.equal(200);

    const load = sendLoad(server, auth, 4);
    const results: Array<[string, CliResult]> = [];
    const keys = [owner.api_key];
    const run = async (label: string, args: string[]) => {
      const res = await cli(...args);
      results.push([label, res]);
      return res;
    };
    const times = Array.from({ length: 20 }, (_, i) => i);
    const chains: Array<() => Promise<void>> = [
      async () => {
        for (const i of times) {
          passwords.push(`new-${i}-pw`);
          await run("user create", [
            "user",
            "create",
            "--no-input",
            "--email",
            `new${i}@zulip.test`,
            "--full-name",
            `New ${i}`,
            "--password",
            `new-${i}-pw`,
          ]);
        }
      },
      async () => {
        for (const i of times) {
          passwords.push(`hamlet-${i}-pw`);
          await run("set-password", [
            "user",
            "set-password",
            "--no-input",
            "--email",
            "hamlet@zulip.test",
            "--password",
            `hamlet-${i}-pw`,
          ]);
        }
      },
      async () => {
        for (const _ of times) {
          const res = await run("api-key", [
            "api-key",
            "--no-input",
            "--json",
            "--email",
            "hamlet@zulip.test",
          ]);
          if (res.code === 0) keys.push((JSON.parse(res.stdout) as { api_key: string }).api_key);
        }
      },
      async () => {
        for (const i of times) {
          const role = i % 2 === 0 ? "moderator" : "member";
          await run("user role", [
            "user",
            "role",
            "--no-input",
            "--email",
            "iago@zulip.test",
            "--role",
            role,
          ]);
        }
      },
      async () => {
        for (const _ of times) {
          await run("deactivate", ["user", "deactivate", "--no-input", "--email", "horatio@zulip.test"]);
          await run("reactivate", ["user", "reactivate", "--no-input", "--email", "horatio@zulip.test"]);
        }
      },
      async () => {
        for (const i of times) {
          await run("message send", [
            "message",
            "send",
            "--no-input",
            "--channel",
            "load",
            "--topic",
            `cli ${i}`,
            "--content",
            `announcement ${i}`,
          ]);
          await run("topic delete", [
            "topic",
            "delete",
            "--no-input",
            "--channel",
            "load",
            "--topic",
            `cli ${i}`,
          ]);
        }
      },
      async () => {
        for (const i of times) {
          await run("channel create", ["channel", "create", "--no-input", "--name", `cli ${i}`]);
          await run("channel archive", ["channel", "archive", "--no-input", "--name", `cli ${i}`]);
        }
      },
    ];
    await Promise.all(chains.map((chain) => chain()));
    const { sent, failures } = await load.stop();

    const failed = results.filter(([, res]) => res.code !== 0);
    expect(failed.map(([label, res]) => `${label}: ${res.stderr}`)).to.deep.equal([]);
    const counts: Record<string, number> = {};
    for (const [label] of results) counts[label] = (counts[label] ?? 0) + 1;
    expect(Object.values(counts)).to.deep.equal(Array(Object.keys(counts).length).fill(20));
    const serverErrors = server
      .log()
      .split("\n")
      .filter((line) => / ERROR /.test(line));
    expect(failures, serverErrors.join("\n")).to.deep.equal([]);
    expect(sent).to.be.above(100);

    // No secret reached any output or the server's log.
    const secrets = [...passwords, ...keys, ...(await storedSecrets(dataDir))];
    const outputs = results.map(([, res]) => res.stderr).join("\n") + server.log();
    for (const secret of secrets) expect(outputs).not.to.contain(secret);
  });

  it("a command waits for the write lock, and says plainly when it stays busy, printing no SQL or secret", async function () {
    initDataDir(dataDir);
    const created = chatdSync([
      "--data-dir",
      dataDir,
      "user",
      "create",
      "--no-input",
      "--email",
      "hamlet@zulip.test",
      "--full-name",
      "Hamlet",
      "--password",
      "first-password",
    ]);
    expect(created.code, created.stderr).to.equal(0);
    const setPassword = (password: string, env: NodeJS.ProcessEnv = {}) =>
      chatd(
        [
          "--data-dir",
          dataDir,
          "user",
          "set-password",
          "--no-input",
          "--email",
          "hamlet@zulip.test",
          "--password",
          password,
        ],
        { env },
      );
    // Another process (here: the test) holds the write lock.
    const holder = createKnex(dataDirConfig(dataDir));
    let outputs = "";
    try {
      await holder.raw(TAKE_WRITE_LOCK);
      const busy = await setPassword("second-password", { CHATD_SQLITE_BUSY_TIMEOUT_MS: "200" });
      outputs += busy.stderr;
      expect(busy.code).to.equal(2);
      expect(busy.stdout).to.equal("");
      expect(busy.stderr).to.match(/trying again \(1\/2\)/);
      expect(busy.stderr).to.match(/trying again \(2\/2\)/);
      const lines = busy.stderr.trim().split("\n");
      expect(lines.at(-1)).to.equal(
        "error: database busy while setting a password: the server kept it locked; try again",
      );
      for (const leak of ["second-password", "scrypt", "password_hash", "update", "BEGIN", "SQLITE_"]) {
        expect(busy.stderr).not.to.contain(leak);
      }

      // Released within the busy timeout: the command waits for it and succeeds.
      const waiting = setPassword("third-password");
      await new Promise((r) => setTimeout(r, 1500));
      await holder.raw("ROLLBACK");
      const waited = await waiting;
      outputs += waited.stdout + waited.stderr;
      expect(waited.code, waited.stderr).to.equal(0);
      expect(waited.stderr).to.equal("");
    } finally {
      await holder.destroy();
    }
    for (const secret of await storedSecrets(dataDir)) expect(outputs).not.to.contain(secret);
  });

  it("the server waits out an admin command that holds the write lock, then answers a clean 500 if it must", async function () {
    const owner = initDataDir(dataDir);
    server = await startServerProcess(dataDir, {
      env: { CHATD_SQLITE_BUSY_TIMEOUT_MS: "1000", CHATD_LOG_LEVEL: "warn" },
    });
    const waitedOnce = /WARN database busy \(an admin command is writing\); waiting again \(1\/2\)/;
    const send = (content: string) =>
      fetch(`${server!.url}/api/v1/messages`, {
        method: "POST",
        headers: basicAuth(owner.email, owner.api_key),
        body: new URLSearchParams({ type: "private", to: JSON.stringify([owner.email]), content }),
      });
    const holder = createKnex(dataDirConfig(dataDir));
    try {
      // Held until the send's first attempt gave up (it says so), then released within the
      // second: the send waits again and succeeds. Watching the log, not a clock, keeps
      // this independent of how long the request takes to reach its transaction.
      await holder.raw(TAKE_WRITE_LOCK);
      const waiting = send("waited");
      for (let polls = 0; !waitedOnce.test(server.log()); polls++) {
        if (polls > 1500) throw new Error(`the send never waited again; server log:\n${server.log()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await holder.raw("ROLLBACK");
      expect((await waiting).status).to.equal(200);
      expect(server.log()).not.to.match(/waiting again \(2\/2\)/);

      // Held through all three attempts: a generic 500, and the log names no SQL.
      await holder.raw(TAKE_WRITE_LOCK);
      const refused = await send("refused");
      await holder.raw("ROLLBACK");
      expect(refused.status).to.equal(500);
      expect(await refused.json()).to.deep.equal({
        result: "error",
        msg: "Internal server error",
        code: "INTERNAL_SERVER_ERROR",
      });
      expect(server.log()).to.match(/ERROR POST \/api\/v1\/messages failed: database busy/);
      for (const leak of ["BEGIN", "insert", "refused", "SQLITE_"]) expect(server.log()).not.to.contain(leak);
    } finally {
      await holder.destroy();
    }
  });
});
