import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { expect } from "chai";
import { ROOT } from "../helpers/cli.js";

/** PATH without any node_modules/.bin: nothing from this checkout's dev dependencies. */
const barePath = (process.env.PATH ?? "")
  .split(delimiter)
  .filter((dir) => !dir.includes("node_modules"))
  .join(delimiter);

describe("a production install (npm ci --omit=dev: no dev dependencies)", function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(function () {
    // The package's files, without node_modules (so without TypeScript) and without dist/.
    dir = mkdtempSync(join(tmpdir(), "chatd-install-"));
    for (const sub of ["config", "bin"]) mkdirSync(join(dir, sub));
    for (const file of ["package.json", "config/prepare.js", "bin/chatd"]) {
      copyFileSync(join(ROOT, file), join(dir, file));
    }
  });
  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs the prepare script without failing, and says it did not build", function () {
    const res = spawnSync("npm", ["run", "prepare"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: barePath, npm_config_loglevel: "error" },
    });
    expect(res.status, res.stderr).to.equal(0);
    expect(res.stderr).to.contain("TypeScript is not installed");
    expect(res.stderr).to.contain("there is no dist/ to run");
  });

  it("chatd without dist/ says how to build instead of a module stack trace", function () {
    const res = spawnSync(process.execPath, [join(dir, "bin", "chatd"), "--help"], { encoding: "utf8" });
    expect(res.status).to.equal(2);
    expect(res.stderr).to.match(/^chatd is not built \(no dist\/\): run `npm run build`/);
    expect(res.stderr).not.to.match(/\n\s+at /);
  });
});
