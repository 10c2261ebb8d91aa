import { cliDatabaseEnv, onPostgres } from "../helpers/postgres.js";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { BIN, chatdSync, exited, freePort, waitForServer } from "../helpers/cli.js";
import { MIGRATIONS } from "../../migrations/index.js";

/** A command without --data-dir: the current directory's, or CHATD_DATA_DIR's. */
const chatd = (args: string[], env: NodeJS.ProcessEnv = {}) => chatdSync(args, { env });

describe("the chatd CLI", function () {
  this.timeout(60_000);
  let dataDir: string;

  beforeEach(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-"));
  });
  afterEach(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  const initArgs = (dir: string) => [
    "--data-dir",
    dir,
    "init",
    "--no-input",
    "--json",
    "--realm-name",
    "Elsinore",
    "--owner-email",
    "desdemona@zulip.test",
    "--owner-name",
    "Desdemona",
    "--owner-password",
    "correct horse",
  ];

  it("init --no-input --json prints exactly one JSON object, and refuses to run twice", function () {
    const first = chatd(initArgs(dataDir));
    expect(first.code, first.stderr).to.equal(0);
    const result = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(Object.keys(result).sort()).to.deep.equal(["api_key", "email", "realm_url", "user_id"]);
    expect(result.email).to.equal("desdemona@zulip.test");
    expect(result.api_key).to.match(/^[A-Za-z0-9]{32}$/);
    expect(result.realm_url).to.equal("http://127.0.0.1:9991");

    const second = chatd(initArgs(dataDir));
    expect(second.code).to.equal(1);
    expect(second.stderr).to.match(/a realm already exists/);
    expect(second.stdout).to.equal("");
  });

  it("init without a TTY fails clearly on a missing value", function () {
    const res = chatd(["--data-dir", dataDir, "init", "--realm-name", "X", "--owner-email", "a@zulip.test"]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/missing --owner-name/);
  });

  it("init refuses an invalid email, and CHATD_DATA_DIR picks the directory", function () {
    const bad = chatd(
      [
        "init",
        "--no-input",
        "--realm-name",
        "X",
        "--owner-email",
        "nope",
        "--owner-name",
        "A",
        "--owner-password",
        "secret1",
      ],
      { CHATD_DATA_DIR: dataDir },
    );
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.match(/Invalid email 'nope'/);
  });

  it("user create, user list, api-key and migrate --status", function () {
    const init = JSON.parse(chatd(initArgs(dataDir)).stdout) as { api_key: string };
    const created = chatd([
      "--data-dir",
      dataDir,
      "user",
      "create",
      "--no-input",
      "--json",
      "--email",
      "hamlet@zulip.test",
      "--full-name",
      "Hamlet",
      "--password",
      "to-be-or-not",
      "--role",
      "admin",
    ]);
    expect(created.code, created.stderr).to.equal(0);
    expect(JSON.parse(created.stdout)).to.include({ email: "hamlet@zulip.test", role: "admin" });

    const dup = chatd([
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
      "to-be-or-not",
    ]);
    expect(dup.code).to.equal(1);
    expect(dup.stderr).to.match(/Email 'hamlet@zulip.test' already in use/);

    const badRole = chatd([
      "--data-dir",
      dataDir,
      "user",
      "create",
      "--no-input",
      "--email",
      "x@zulip.test",
      "--full-name",
      "X",
      "--password",
      "secret12",
      "--role",
      "king",
    ]);
    expect(badRole.code).to.equal(1);

    const list = chatd(["--data-dir", dataDir, "user", "list", "--json"]);
    const users = JSON.parse(list.stdout) as Array<{ email: string; role: string }>;
    expect(users.map((u) => [u.email, u.role])).to.deep.equal([
      ["desdemona@zulip.test", "owner"],
      ["hamlet@zulip.test", "admin"],
    ]);
    const table = chatd(["--data-dir", dataDir, "user", "list"]);
    expect(table.stdout).to.match(/hamlet@zulip\.test/);

    const key = chatd([
      "--data-dir",
      dataDir,
      "api-key",
      "--email",
      "desdemona@zulip.test",
      "--revoke-all",
      "--json",
    ]);
    const issued = JSON.parse(key.stdout) as { api_key: string; revoked: number };
    expect(issued.api_key)
      .to.match(/^[A-Za-z0-9]{32}$/)
      .and.not.equal(init.api_key);
    expect(issued.revoked).to.equal(1);

    // chatd backup copies the SQLite file; on PostgreSQL it points to pg_dump (backup-uploads.test.ts).
    if (!onPostgres()) {
      const backupFile = join(dataDir, "backup.sqlite3");
      const backup = chatd(["--data-dir", dataDir, "backup", "--to", backupFile]);
      expect(backup.code, backup.stderr).to.equal(0);
      // Restoring = putting the file in place as chatd.sqlite3 of a data directory.
      const restored = join(dataDir, "restored");
      mkdirSync(restored);
      copyFileSync(backupFile, join(restored, "chatd.sqlite3"));
      const fromBackup = chatd(["--data-dir", restored, "user", "list", "--json"]);
      expect((JSON.parse(fromBackup.stdout) as unknown[]).length).to.equal(2);
      expect(chatd(["--data-dir", dataDir, "backup", "--to", backupFile]).code).to.equal(1);
    }

    const status = chatd(["--data-dir", dataDir, "migrate", "--status", "--json"]);
    expect(JSON.parse(status.stdout)).to.deep.equal({
      applied: MIGRATIONS.map(([name]) => name),
      pending: [],
    });
  });

  it("serve: a client authenticates, registers and long-polls; SIGTERM stops it cleanly with exit 0", async function () {
    const init = JSON.parse(chatd(initArgs(dataDir)).stdout) as { api_key: string; email: string };
    const port = await freePort();
    writeFileSync(join(dataDir, "settings.json"), JSON.stringify({ heartbeat_interval_secs: 30 }));
    const child = spawn(process.execPath, [BIN, "--data-dir", dataDir, "serve", "--port", String(port)], {
      env: {
        ...process.env,
        ...cliDatabaseEnv(["--data-dir", dataDir, "serve", "--port", String(port)], {}),
        CHATD_LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForServer(url, child);
      const auth = {
        authorization: `Basic ${Buffer.from(`${init.email}:${init.api_key}`).toString("base64")}`,
      };
      const me = (await (await fetch(`${url}/api/v1/users/me`, { headers: auth })).json()) as Record<
        string,
        unknown
      >;
      expect(me).to.include({ result: "success", email: init.email });
      const reg = (await (
        await fetch(`${url}/api/v1/register`, {
          method: "POST",
          headers: auth,
          body: new URLSearchParams({ event_types: '["message"]' }),
        })
      ).json()) as { queue_id: string };
      // A parked long-poll must not hold up a graceful shutdown.
      const poll = fetch(
        `${url}/api/v1/events?queue_id=${encodeURIComponent(reg.queue_id)}&last_event_id=-1`,
        { headers: auth },
      );
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      child.kill("SIGTERM");
      const pollBody = (await (await poll).json()) as { result: string; events: unknown[] };
      expect(pollBody.result).to.equal("success");
      expect(await exited(child)).to.equal(0);
      expect(Date.now() - started).to.be.below(5000);
      expect(log).to.match(/GET \/api\/v1\/users\/me 200/);
      expect(log).not.to.contain(init.api_key);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("a running server sees users created by the CLI within seconds, and their events reach its queues", async function () {
    const init = JSON.parse(chatd(initArgs(dataDir)).stdout) as { api_key: string; email: string };
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, "--data-dir", dataDir, "serve", "--port", String(port)], {
      env: {
        ...process.env,
        ...cliDatabaseEnv(["--data-dir", dataDir, "serve", "--port", String(port)], {}),
        CHATD_LOG_LEVEL: "warn",
      },
      stdio: "ignore",
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitForServer(url, child);
      const auth = {
        authorization: `Basic ${Buffer.from(`${init.email}:${init.api_key}`).toString("base64")}`,
      };
      const emails = async () =>
        (
          (await (await fetch(`${url}/api/v1/users`, { headers: auth })).json()) as {
            members: Array<{ email: string }>;
          }
        ).members.map((m) => m.email);
      expect(await emails()).not.to.include("yorick@zulip.test");
      const registered = (await (
        await fetch(`${url}/api/v1/register`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ event_types: JSON.stringify(["realm_user"]) }),
        })
      ).json()) as { queue_id: string };
      const created = chatd([
        "--data-dir",
        dataDir,
        "user",
        "create",
        "--no-input",
        "--email",
        "yorick@zulip.test",
        "--full-name",
        "Yorick",
        "--password",
        "alas-poor",
      ]);
      expect(created.code, created.stderr).to.equal(0);
      let seen = false;
      for (let i = 0; i < 40 && !seen; i++) {
        seen = (await emails()).includes("yorick@zulip.test");
        if (!seen) await new Promise((r) => setTimeout(r, 100));
      }
      expect(seen).to.equal(true);
      // The command's events went through the outbox to the server's queues.
      const polled = (await (
        await fetch(
          `${url}/api/v1/events?${new URLSearchParams({ queue_id: registered.queue_id, last_event_id: "-1" }).toString()}`,
          { headers: auth },
        )
      ).json()) as { events: Array<{ type: string; op: string; person: { email: string } }> };
      expect(polled.events.map((e) => [e.type, e.op, e.person.email])).to.deep.equal([
        ["realm_user", "add", "yorick@zulip.test"],
      ]);
    } finally {
      child.kill("SIGTERM");
      await exited(child);
    }
  });

  it("a user the CLI deactivates loses their event queues on the running server", async function () {
    const init = JSON.parse(chatd(initArgs(dataDir)).stdout) as { api_key: string; email: string };
    const yorick = ["--email", "yorick@zulip.test"];
    const create = [
      "user",
      "create",
      "--no-input",
      ...yorick,
      "--full-name",
      "Yorick",
      "--password",
      "alas-poor",
    ];
    expect(chatd(["--data-dir", dataDir, ...create]).code).to.equal(0);
    const key = JSON.parse(chatd(["--data-dir", dataDir, "api-key", ...yorick, "--json"]).stdout) as {
      api_key: string;
    };
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, "--data-dir", dataDir, "serve", "--port", String(port)], {
      env: {
        ...process.env,
        ...cliDatabaseEnv(["--data-dir", dataDir, "serve", "--port", String(port)], {}),
        CHATD_LOG_LEVEL: "warn",
      },
      stdio: "ignore",
    });
    const url = `http://127.0.0.1:${port}`;
    const basic = (email: string, apiKey: string) => ({
      authorization: `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`,
    });
    const owner = basic(init.email, init.api_key);
    const user = basic("yorick@zulip.test", key.api_key);
    const registerQueue = async (auth: Record<string, string>) =>
      (
        (await (
          await fetch(`${url}/api/v1/register`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ event_types: JSON.stringify(["realm_user"]) }),
          })
        ).json()) as { queue_id: string }
      ).queue_id;
    const poll = async (auth: Record<string, string>, queueId: string) => {
      const query = new URLSearchParams({ queue_id: queueId, last_event_id: "-1", dont_block: "true" });
      const target = `${url}/api/v1/events?${query.toString()}`;
      // Under heavy load a pooled keep-alive socket can be reused just as the server's idle timeout
      // closes it ("other side closed"); one retry on a fresh socket tells that apart from a dead server.
      const response = await fetch(target, { headers: auth }).catch(() => fetch(target, { headers: auth }));
      return (await response.json()) as {
        result: string;
        code?: string;
        events: Array<{ person: { is_active: boolean } }>;
      };
    };
    /** Waits until the owner's queue holds `count` realm_user events (the outbox is drained). */
    const ownerSees = async (queueId: string, count: number) => {
      for (let i = 0; i < 50; i++) {
        const events = (await poll(owner, queueId)).events;
        if (events.length >= count) return events.map((e) => e.person.is_active);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("the server never published the command's events");
    };
    try {
      await waitForServer(url, child);
      const ownerQueue = await registerQueue(owner);
      const userQueue = await registerQueue(user);
      expect((await poll(user, userQueue)).result).to.equal("success");
      expect(chatd(["--data-dir", dataDir, "user", "deactivate", ...yorick]).code).to.equal(0);
      expect(await ownerSees(ownerQueue, 1)).to.deep.equal([false]);
      // A deactivated user cannot authenticate at all; once reactivated, the old queue is gone.
      expect(chatd(["--data-dir", dataDir, "user", "reactivate", ...yorick]).code).to.equal(0);
      expect(await ownerSees(ownerQueue, 2)).to.deep.equal([false, true]);
      const after = await poll(user, userQueue);
      expect(after).to.include({ result: "error", code: "BAD_EVENT_QUEUE_ID" });
      // A queue registered after reactivation works.
      expect((await poll(user, await registerQueue(user))).result).to.equal("success");
    } finally {
      child.kill("SIGTERM");
      await exited(child);
    }
  });

  it("serve refuses to start without a realm", function () {
    const res = chatd(["--data-dir", dataDir, "serve", "--port", "0"]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/run `chatd init` first/);
  });

  it("start initializes a fresh data directory once, printing the credentials, then serves", async function () {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, "--data-dir", dataDir, "start", "--port", String(port)], {
      env: {
        ...process.env,
        ...cliDatabaseEnv(["--data-dir", dataDir, "start", "--port", String(port)], {}),
        CHATD_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitForServer(`http://127.0.0.1:${port}`, child);
      expect(out).to.match(/API key:\s+\S{32}/);
      expect(out).to.match(/Password:/);
      child.kill("SIGINT");
      expect(await exited(child)).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    const again = chatd(initArgs(dataDir));
    expect(again.code).to.equal(1);
  });
});
