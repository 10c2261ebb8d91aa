import { spawnSync } from "node:child_process";
import { randomBytes, scryptSync } from "node:crypto";
import { getPriority } from "node:os";
import { expect } from "chai";
import { PasswordHashPool, type HashJob } from "../../src/lib/password-hash-pool.js";
import {
  SCRYPT_PARAMS,
  hashPassword,
  passwordHashGate,
  passwordHashPool,
  verifyPassword,
} from "../../src/lib/passwords.js";
import { SCHED_IDLE, idleSchedulingAvailable, processRunning, schedulingPolicy } from "../helpers/workers.js";

/** A hash that takes a while (32 MiB of scrypt): long enough to be caught in flight. */
const SLOW = { N: 32768, r: 8, p: 1 };

const tick = () => new Promise((r) => setImmediate(r));

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
}

function job(password: string, params = { N: 1024, r: 8, p: 1 }): HashJob {
  return { password, salt: randomBytes(16).toString("base64"), keyLength: 32, ...params };
}

/** What scrypt computes for `job` in this process. */
const expectedKey = (j: HashJob) =>
  scryptSync(j.password.normalize("NFKC"), Buffer.from(j.salt, "base64"), j.keyLength, {
    N: j.N,
    r: j.r,
    p: j.p,
    maxmem: 64 * 1024 * 1024,
  });

describe("password hashing in low-priority worker processes", function () {
  this.timeout(30_000);

  it("hashes and verifies through the pool: the right password verifies, others are refused", async function () {
    const hash = await hashPassword("hamlet-password", SCRYPT_PARAMS);
    expect(await verifyPassword("hamlet-password", hash)).to.equal(true);
    expect(await verifyPassword("hamlet-passwort", hash)).to.equal(false);
    expect(await verifyPassword("Hamlet-password", hash)).to.equal(false);
    // NFKC, as before: the ligature and its letters are the same password.
    const ligature = await hashPassword("\ufb01ne-password", SCRYPT_PARAMS);
    expect(await verifyPassword("fine-password", ligature)).to.equal(true);
    // A malformed stored cost fails the verification, as scrypt refused it in process.
    const [, , r, p, salt, key] = hash.split("$");
    await verifyPassword("hamlet-password", ["scrypt", "1000", r, p, salt, key].join("$")).then(
      () => expect.fail("verified with an invalid cost"),
      (err: Error) => expect(err.message).to.match(/N|power|invalid/i),
    );
  });

  it("hashes in worker processes at nice 19, under SCHED_IDLE where the system allows it", async function () {
    // Never rescued, however loaded the machine: the pool's own workers answer.
    const pool = new PasswordHashPool(2, 600_000);
    try {
      const jobs = [job("a"), job("b")];
      await Promise.all(jobs.map((j) => pool.hash(j)));
      const pids = pool.pids;
      expect(pids).to.have.length.within(1, 2);
      for (const pid of pids) {
        expect(pid).to.not.equal(process.pid);
        expect(getPriority(pid), "the lowest nice value").to.equal(19);
        if (idleSchedulingAvailable()) expect(schedulingPolicy(pid), "SCHED_IDLE").to.equal(SCHED_IDLE);
      }
      expect(pool.rescuerPid).to.equal(undefined);
    } finally {
      await pool.stop();
    }
  });

  it("replaces a worker that dies, and runs the job it was running again", async function () {
    const pool = new PasswordHashPool(1, 600_000);
    try {
      const first = job("ophelia", SLOW);
      await pool.hash(first);
      const [before] = pool.pids;
      process.kill(before!, "SIGKILL");
      await until(() => !pool.pids.includes(before!), "the dead worker is gone");
      expect((await pool.hash(first)).equals(expectedKey(first))).to.equal(true);
      const [replacement] = pool.pids;
      expect(replacement).to.be.a("number").and.not.equal(before);
      expect(getPriority(replacement)).to.equal(19);

      // Killed mid-hash: the caller still gets the right answer, from a new worker.
      const hashing = pool.hash(first);
      await until(() => pool.busy === 1, "the job runs");
      process.kill(replacement!, "SIGKILL");
      expect((await hashing).equals(expectedKey(first))).to.equal(true);
      expect(pool.pids).to.have.length(1).and.not.include(replacement);
    } finally {
      await pool.stop();
    }
  });

  it("a job whose worker dies twice fails (no endless retries)", async function () {
    // No rescue however slow the machine: the job must reach both deaths.
    const pool = new PasswordHashPool(1, 600_000);
    try {
      const hashing = pool.hash(job("x", SLOW));
      let killed = 0;
      for (const _ of [1, 2]) {
        // The second time on the replacement, which the job moved to.
        await until(() => pool.busy === 1 && pool.pids[0] !== killed, "the job runs");
        killed = pool.pids[0]!;
        process.kill(killed, "SIGKILL");
      }
      await hashing.then(
        () => expect.fail("resolved"),
        (err: Error) => expect(err.message).to.equal("password hashing failed: its worker process died"),
      );
      // The pool goes on.
      const next = job("y");
      expect((await pool.hash(next)).equals(expectedKey(next))).to.equal(true);
    } finally {
      await pool.stop();
    }
  });

  it("never runs more workers or jobs at once than its size; every answer goes to its caller", async function () {
    const pool = new PasswordHashPool(2, 600_000);
    try {
      const jobs = Array.from({ length: 7 }, (_, i) => job(`password-${i}`));
      let sampling = true;
      let mostWorkers = 0;
      let mostBusy = 0;
      const sampler = (async () => {
        while (sampling) {
          mostWorkers = Math.max(mostWorkers, pool.pids.length);
          mostBusy = Math.max(mostBusy, pool.busy);
          await tick();
        }
      })();
      const keys = await Promise.all(jobs.map((j) => pool.hash(j)));
      sampling = false;
      await sampler;
      keys.forEach((key, i) => expect(key.equals(expectedKey(jobs[i]!)), `job ${i}`).to.equal(true));
      expect([mostWorkers, mostBusy]).to.deep.equal([2, 2]);
      expect(pool.busy).to.equal(0);
    } finally {
      await pool.stop();
    }
    // The server's pool runs as many hashes as the gate lets through, no more.
    expect(passwordHashPool.size).to.equal(passwordHashGate.limit);
  });

  it("stop() ends every worker; the next hash starts a new one", async function () {
    const pool = new PasswordHashPool(2, 600_000);
    await Promise.all([pool.hash(job("a")), pool.hash(job("b"))]);
    const pids = pool.pids;
    expect(pids).to.have.length(2);
    await pool.stop();
    expect(pool.pids).to.deep.equal([]);
    for (const pid of pids) expect(processRunning(pid), `worker ${pid}`).to.equal(false);

    const again = job("c");
    expect((await pool.hash(again)).equals(expectedKey(again))).to.equal(true);
    expect(pool.pids).to.have.length(1);
    await pool.stop();
  });

  it("answers and stops in a process with nothing else to wait for (a CLI command)", function () {
    const passwords = new URL("../../src/lib/passwords.js", import.meta.url).href;
    const script = `
      import { hashPassword, verifyPassword, passwordHashPool } from ${JSON.stringify(passwords)};
      const hash = await hashPassword("pw", { N: 1024, r: 8, p: 1 });
      console.log("verified", await verifyPassword("pw", hash));
      await passwordHashPool.stop();
      console.log("stopped", passwordHashPool.pids.length);`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect([run.status, run.stdout]).to.deep.equal([0, "verified true\nstopped 0\n"]);
  });

  it("gives a job its worker starves on to the rescuer (nice 10, normal policy), and ends that worker", async function () {
    // No rescue while warming up, however loaded the machine: the worker must be the pool's.
    const pool = new PasswordHashPool(1, 600_000);
    let stopped: number | undefined;
    try {
      await pool.hash(job("warm"));
      [stopped] = pool.pids;
      // A stopped process is what a SCHED_IDLE one is on a machine whose cores are all busy.
      process.kill(stopped!, "SIGSTOP");
      pool.starvedAfterMs = 300;
      const starved = job("starved");
      expect((await pool.hash(starved)).equals(expectedKey(starved))).to.equal(true);
      const rescuer = pool.rescuerPid;
      expect(rescuer).to.be.a("number");
      expect(getPriority(rescuer), "nice 10").to.equal(10);
      expect(schedulingPolicy(rescuer!), "SCHED_OTHER").to.equal(0);
      await until(() => !processRunning(stopped!), "the starved worker is ended");
      expect(pool.pids).to.not.include(stopped);

      // The machine was just found saturated: the next job goes straight to the rescuer.
      const next = job("next");
      const nextKey = pool.hash(next);
      expect(pool.pids, "no pool worker started").to.deep.equal([]);
      expect((await nextKey).equals(expectedKey(next))).to.equal(true);
      // Five times starvedAfterMs after the rescue, a fresh pool worker is tried again.
      await new Promise((r) => setTimeout(r, 5 * 300));
      const later = job("later");
      const laterKey = pool.hash(later);
      expect(pool.pids, "a pool worker started").to.have.length(1).and.not.include(stopped);
      expect((await laterKey).equals(expectedKey(later))).to.equal(true);
      expect(pool.rescuerPid).to.equal(rescuer);
    } finally {
      if (stopped && processRunning(stopped)) process.kill(stopped, "SIGCONT");
      await pool.stop();
    }
    expect(pool.rescuerPid).to.equal(undefined);
  });

  it("stop() lets a job in flight finish before its worker ends", async function () {
    const pool = new PasswordHashPool(1, 600_000);
    const slow = job("slow", SLOW);
    const hashing = pool.hash(slow);
    await until(() => pool.busy === 1, "the job runs");
    const [pid] = pool.pids;
    await pool.stop();
    expect((await hashing).equals(expectedKey(slow))).to.equal(true);
    expect(processRunning(pid!)).to.equal(false);
  });
});
