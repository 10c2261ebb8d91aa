import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../helpers/cli.js";

const MODULE = JSON.stringify(pathToFileURL(join(ROOT, "dist", "src", "cli", "young-generation.js")).href);

/** A hot function, run enough for TurboFan; V8's --trace-opt says when it optimizes it. */
const HOT = `
  const hot = (x) => { let s = 0; for (let i = 0; i < 1000; i++) s += (x * i) % 7; return s; };
  const runHot = () => { for (let i = 0; i < 20000; i++) hot(i); };`;

/** Runs `steps` with --trace-opt; the optimizations it reports, by the step that printed "[step N]" before. */
function optimizedPerStep(steps: string, nodeArgs: string[] = []): number[] {
  const script = `import { holdDuringStartup, releaseAfterStartup, releaseWhenBusy } from ${MODULE};
    ${HOT}
    ${steps}`;
  const res = spawnSync(process.execPath, [...nodeArgs, "--trace-opt", "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  if (res.status !== 0) throw new Error(res.stderr);
  return res.stdout
    .split(/\[step \d+\]\n/)
    .map((part) => part.split("\n").filter((line) => line.includes("completed optimizing")).length);
}

describe("start-up memory: the optimizing compiler", function () {
  this.timeout(30_000);

  it("is held during start-up and optimizes hot code as usual afterwards", function () {
    const [during, after] = optimizedPerStep(`
      holdDuringStartup();
      runHot();
      console.log("[step 1]");
      releaseAfterStartup();
      runHot();`);
    expect(during).to.equal(0);
    expect(after).to.be.greaterThan(0);
  });

  it("a server keeps it held through a burst of work, and releases it under load", function () {
    const [burst, load] = optimizedPerStep(`
      holdDuringStartup();
      const kept = [];
      const allocate = (n) => { for (let i = 0; i < n; i++) kept.push({ i, s: "x" + i }); };
      releaseWhenBusy();
      // Start-up's last work: many scavenges within a few milliseconds.
      allocate(400000);
      await new Promise((r) => setTimeout(r, 300));
      runHot();
      console.log("[step 1]");
      // Load: allocation that keeps the scavenger running for a second and more.
      const until = Date.now() + 1500;
      while (Date.now() < until) { allocate(20000); kept.length = 0; await new Promise((r) => setImmediate(r)); }
      runHot();`);
    expect(burst).to.equal(0);
    expect(load).to.be.greaterThan(0);
  });

  it("leaves an operator's own compiler settings alone", function () {
    const [during] = optimizedPerStep(
      `holdDuringStartup();
      runHot();
      console.log("[step 1]");`,
      ["--turbofan"],
    );
    expect(during).to.be.greaterThan(0);
  });
});
