import { mkdtempSync, rmSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { Client, expectError, expectSuccess } from "../helpers/client.js";
import { exited, initDataDir, OWNER, startServerProcess, type ServerProcess } from "../helpers/cli.js";
import {
  SCHED_IDLE,
  childPids,
  idleSchedulingAvailable,
  processRunning,
  schedulingPolicy,
} from "../helpers/workers.js";

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe("chatd serve: password hashing in low-priority processes", function () {
  this.timeout(60_000);
  let dir: string;
  let server: ServerProcess | null = null;

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "chatd-hash-procs-"));
    initDataDir(dir); // `chatd init` hashes too, and still exits
  });
  afterEach(async function () {
    await server?.stop();
    server = null;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Logs in (right password) and fails to (wrong one); the server's hashing processes then. */
  async function logInAndOut(running: ServerProcess): Promise<number[]> {
    const anonymous = new Client(running.url, null);
    expectSuccess(
      await anonymous.post("/fetch_api_key", { username: OWNER.email, password: OWNER.password }),
    );
    expectError(
      await anonymous.post("/fetch_api_key", { username: OWNER.email, password: "wrong horse" }),
      401,
      "Your username or password is incorrect",
      "AUTHENTICATION_FAILED",
    );
    return childPids(running.child.pid!);
  }

  it("starts none until a password is checked, runs them at the lowest priority, and a stop ends them", async function () {
    server = await startServerProcess(dir);
    expect(childPids(server.child.pid!), "before any login").to.deep.equal([]);
    const workers = await logInAndOut(server);
    expect(workers).to.have.length.at.least(1);
    const rescuers = workers.filter((pid) => getPriority(pid) === 10);
    // The rescuer (nice 10, normal policy) runs only when the machine starved the pool.
    expect(rescuers, "rescuers").to.have.length.at.most(1);
    for (const pid of rescuers) expect(schedulingPolicy(pid), `rescuer ${pid}`).to.equal(0);
    for (const pid of workers.filter((p) => !rescuers.includes(p))) {
      expect(getPriority(pid), `worker ${pid}'s nice value`).to.equal(19);
      // Where the system offers it, the policy whose tasks yield to any other at once.
      if (idleSchedulingAvailable()) expect(schedulingPolicy(pid), `worker ${pid}`).to.equal(SCHED_IDLE);
    }

    expect(await server.stop()).to.equal(0);
    server = null;
    for (const pid of workers) expect(processRunning(pid), `worker ${pid}`).to.equal(false);
  });

  it("leaves none behind when the server is killed", async function () {
    server = await startServerProcess(dir);
    const workers = await logInAndOut(server);
    expect(workers).to.have.length.at.least(1);
    server.child.kill("SIGKILL");
    await exited(server.child);
    server = null;
    await until(() => workers.every((pid) => !processRunning(pid)), "the orphaned workers exit");
  });
});
