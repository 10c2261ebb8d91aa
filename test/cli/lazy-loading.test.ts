import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  basicAuth,
  initDataDir,
  ROOT,
  startServerProcess,
  type InitResult,
  type ServerProcess,
} from "../helpers/cli.js";
import { readModuleLog } from "../helpers/module-log.js";

const RECORDER = pathToFileURL(join(ROOT, "dist", "test", "helpers", "module-recorder.js")).href;

/** Packages an idle server must not hold: each is loaded by the first request that needs it. */
const LOADED_ON_FIRST_USE = [
  "koa-body",
  "zod",
  "co-body",
  "formidable",
  "re2js",
  "sanitize-html",
  "markdown-it",
  "sharp",
  "file-type",
  "inquirer",
];
const packagesIn = (log: string) =>
  new Set(LOADED_ON_FIRST_USE.filter((name) => log.includes(`/node_modules/${name}/`)));
/** Endpoint modules (src/api/) loaded so far, by file name. */
const endpointModulesIn = (log: string) =>
  new Set([...log.matchAll(/\/dist\/src\/api\/([\w-]+)\.js/g)].map((m) => m[1]!));

describe("start-up memory: what loads on first use", function () {
  this.timeout(60_000);
  let dataDir: string;
  let owner: InitResult;
  let server: ServerProcess;
  let moduleLog: string;

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-lazy-"));
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

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { ...basicAuth(owner.email, owner.api_key), ...(init.headers as Record<string, string>) },
    });

  it("answers reads over plain Node: no Koa, and only the endpoint modules it served", async function () {
    expect((await fetch(`${server.url}/api/v1/server_settings`)).status).to.equal(200);
    const me = await api("/users/me");
    expect(await me.json()).to.include({ result: "success", email: owner.email });
    const log = readModuleLog(moduleLog);
    expect(log.includes("/node_modules/koa/"), "koa loaded").to.equal(false);
    expect([...endpointModulesIn(log)].sort()).to.deep.equal(["index", "server-settings", "users"]);
    // What only admin commands run (cli/commands/*.ts load it when they run).
    const commandsOnly = ["cli/db-copy/copy", "db/sqlite-backup", "lib/uploads/backup", "actions/bot-create"];
    expect(commandsOnly.filter((name) => log.includes(`/dist/src/${name}.js`))).to.deep.equal([]);
  });

  it("serves its first requests without the rarely used packages, then loads each on first use", async function () {
    expect((await api("/users/me")).status).to.equal(200);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const registered = await api("/register", { method: "POST", headers: form, body: "" });
    expect(registered.status).to.equal(200);
    expect([...packagesIn(readModuleLog(moduleLog))]).to.deep.equal([]);

    // A multipart body: formidable, and a correct answer from the first one.
    const fields = new FormData();
    fields.append("content", "first");
    const rendered = await api("/messages/render", { method: "POST", body: fields });
    expect(await rendered.json()).to.include({ result: "success", rendered: "<p>first</p>" });
    // A linkifier: re2js compiles its pattern, and refuses what RE2 refuses.
    const body = new URLSearchParams({ pattern: "#(?P<id>[0-9]+)", url_template: "https://x.test/{id}" });
    expect((await api("/realm/filters", { method: "POST", headers: form, body })).status).to.equal(200);
    const bad = new URLSearchParams({ pattern: "(?=x)(?P<id>y)", url_template: "https://x.test/{id}" });
    expect((await api("/realm/filters", { method: "POST", headers: form, body: bad })).status).to.equal(400);

    const loaded = packagesIn(readModuleLog(moduleLog));
    expect(loaded.has("formidable") && loaded.has("re2js"), [...loaded].join()).to.equal(true);
  });

  it("sends, and answers 404 and 405, through the Koa and endpoint modules loaded on first use", async function () {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const sent = await api("/messages", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ type: "stream", to: "general", topic: "lazy", content: "first send" }),
    });
    expect(await sent.json()).to.include({ result: "success" });
    // Koa's own answers too: a path no endpoint serves, and a method the path does not take.
    expect((await api("/no/such/path", { method: "POST" })).status).to.equal(404);
    expect((await api("/server_settings", { method: "DELETE" })).status).to.equal(405);
    const log = readModuleLog(moduleLog);
    expect(log.includes("/node_modules/koa/"), "koa loaded").to.equal(true);
    expect(endpointModulesIn(log).has("message-send")).to.equal(true);
  });
});

describe("start-up memory: the young generation", function () {
  this.timeout(30_000);
  const MODULE = pathToFileURL(join(ROOT, "dist", "src", "cli", "young-generation.js")).href;

  /** The young generation's size (MB) after start-up-like allocation, then after more once released. */
  function sizes(nodeArgs: string[]): [number, number] {
    const script = `
      import { getHeapSpaceStatistics } from "node:v8";
      import { holdDuringStartup, releaseAfterStartup } from ${JSON.stringify(MODULE)};
      holdDuringStartup();
      const kept = [];
      const allocate = () => { for (let i = 0; i < 400000; i++) kept.push({ i, s: "x" + i }); };
      const young = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 1048576;
      allocate();
      const during = young();
      releaseAfterStartup();
      allocate();
      console.log(JSON.stringify([during, young()]));`;
    const res = spawnSync(process.execPath, [...nodeArgs, "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    if (res.status !== 0) throw new Error(res.stderr);
    return JSON.parse(res.stdout) as [number, number];
  }

  it("stays at its initial size during start-up and grows as usual afterwards", function () {
    const [during, after] = sizes([]);
    expect(during).to.be.at.most(2);
    expect(after).to.be.greaterThan(during);
  });

  it("a server keeps it held while idle, and releases it once scavenges show load", function () {
    const script = `
      import { getHeapSpaceStatistics } from "node:v8";
      import { holdDuringStartup, releaseWhenBusy } from ${JSON.stringify(MODULE)};
      holdDuringStartup();
      const young = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size / 1048576;
      const kept = [];
      const allocate = (n) => { for (let i = 0; i < n; i++) kept.push({ i, s: "x" + i }); };
      const tick = () => new Promise((r) => setImmediate(r));
      allocate(400000);
      releaseWhenBusy();
      // Idle: a little work now and then.
      for (let i = 0; i < 5; i++) { allocate(2000); await new Promise((r) => setTimeout(r, 200)); }
      const idle = young();
      // Busy: allocation that keeps the scavenger running.
      for (let i = 0; i < 40; i++) { allocate(50000); await tick(); }
      console.log(JSON.stringify([idle, young()]));`;
    const res = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    if (res.status !== 0) throw new Error(res.stderr);
    const [idle, busy] = JSON.parse(res.stdout) as [number, number];
    expect(idle).to.be.at.most(2);
    expect(busy).to.be.greaterThan(idle);
  });

  it("leaves an operator's own growth setting alone", function () {
    const [during] = sizes(["--semi-space-growth-factor=2"]);
    expect(during).to.be.greaterThan(2);
  });
});
