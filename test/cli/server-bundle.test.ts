import { expect } from "chai";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  basicAuth,
  chatdSync,
  initDataDir,
  ROOT,
  startServerProcess,
  type InitResult,
  type ServerProcess,
} from "../helpers/cli.js";
import { readModuleLog } from "../helpers/module-log.js";

const RECORDER = pathToFileURL(join(ROOT, "dist", "test", "helpers", "module-recorder.js")).href;

describe("chatd serve runs from the server bundle", function () {
  this.timeout(60_000);
  let dataDir: string;
  let owner: InitResult;
  let server: ServerProcess;
  let moduleLog: string;

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-bundle-"));
    owner = initDataDir(dataDir);
    moduleLog = join(dataDir, "modules.log");
    server = await startServerProcess(dataDir, {
      env: {
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${RECORDER}`,
        CHATD_TEST_MODULE_LOG: moduleLog,
      },
    });
  });
  after(async function () {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves from dist/server/, its packages bundled, without the admin commands", async function () {
    const me = await fetch(`${server.url}/api/v1/users/me`, {
      headers: basicAuth(owner.email, owner.api_key),
    });
    expect(await me.json()).to.include({ result: "success", email: owner.email });
    const files = readFileSync(moduleLog, "utf8").split("\n");
    expect(files.some((file) => file.endsWith("/dist/server/serve.js"))).to.equal(true);
    // From the unbundled build, only what bin/chatd loads before the bundle.
    const unbundled = files.filter((file) => file.includes("/dist/src/"));
    expect(unbundled.map((file) => file.slice(file.indexOf("/dist/src/")))).to.deep.equal([
      "/dist/src/cli/young-generation.js",
    ]);
    expect(files.filter((file) => file.includes("/node_modules/commander/"))).to.deep.equal([]);
    // TLS loads with the first https webhook delivery, not with the timers at start-up.
    expect(files.filter((file) => /^(node:)?https$/.test(file))).to.deep.equal([]);
    const log = readModuleLog(moduleLog);
    const commands = [
      "cli/main",
      "cli/program",
      "cli/commands/user",
      "cli/commands/migrate",
      "cli/commands/db",
    ];
    expect(commands.filter((name) => log.includes(`/dist/src/${name}.js`))).to.deep.equal([]);
  });

  it("names the TypeScript sources in stack traces (source maps)", function () {
    // A data directory under a file: the failure's cause, with its stack at log level debug.
    const file = join(dataDir, "not-a-directory");
    writeFileSync(file, "");
    const res = chatdSync(["--data-dir", join(file, "data"), "serve", "--log-level", "debug"]);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.include("cannot create the data directory");
    expect(res.stderr).to.match(/at ensurePrivateDir \(\S*\/src\/db\/private-files\.ts:\d+:\d+\)/);
    expect(res.stderr).not.to.include("/dist/");
  });
});
