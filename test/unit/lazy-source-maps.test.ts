import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../helpers/cli.js";

const url = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);

/** The stacks a fresh process writes with useLazySourceMaps() (it sets Error.prepareStackTrace). */
function stacks(): string[] {
  const script = `
    import { useLazySourceMaps } from ${url("dist/src/cli/lazy-source-maps.js")};
    import { loadConfig } from ${url("dist/src/config.js")};
    useLazySourceMaps();
    const stacks = [];
    try { loadConfig({ dataDir: "/nonexistent", env: {}, overrides: { port: "abc" } }); } catch (err) { stacks.push(err.stack); }
    try { Buffer.alloc("x"); } catch (err) { stacks.push(err.stack); }
    console.log(JSON.stringify(stacks));`;
  const res = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout) as string[];
}

describe("stack traces through source maps read on first use", function () {
  this.timeout(20_000);

  it("names the TypeScript source of a frame that has a map, and keeps node's own head lines", function () {
    const [ours, nodes] = stacks();
    expect(ours!.split("\n")[0]).to.equal('ConfigError: port (command line) must be an integer, got "abc"');
    expect(ours).to.match(/\n {4}at coerce \(\S+\/src\/config\.ts:\d+:\d+\)/);
    expect(ours).not.to.include("dist/src/config.js");
    expect(nodes!.split("\n")[0]).to.match(/^TypeError \[ERR_INVALID_ARG_TYPE\]: The "size" argument/);
    expect(nodes).to.match(/\n {4}at Function\.alloc \(node:buffer:\d+:\d+\)/);
  });
});
