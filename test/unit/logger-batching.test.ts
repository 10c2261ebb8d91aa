import { execFile } from "node:child_process";
import { expect } from "chai";

// The default logger (src/logger.ts) writes to stderr once per turn of the event loop,
// warnings and errors at once, and what is pending before the process exits. Each case
// runs in a child process: the batching is module state on the real process.stderr.
const LOGGER_URL = new URL("../../src/logger.js", import.meta.url).href;

interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `body` as an ES module with `createLogger` imported and `writes` recording each stderr write. */
function runChild(body: string): Promise<ChildResult> {
  const script = `
    import { createLogger } from ${JSON.stringify(LOGGER_URL)};
    const writes = [];
    const realWrite = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk, ...rest) => {
      writes.push(String(chunk));
      return realWrite(chunk, ...rest);
    };
    const report = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
    ${body}
  `;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--input-type=module", "-e", script], (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number | null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

describe("logger: batched writes to stderr", function () {
  this.timeout(20_000);

  it("writes the lines of one event-loop turn together, once, after that turn", async function () {
    const child = await runChild(`
      const logger = createLogger("debug");
      logger.info("first");
      logger.debug("second");
      logger.info("third");
      const duringTurn = writes.length;
      setImmediate(() => setImmediate(() => {
        const afterTurn = [...writes];
        logger.info("next turn");
        setImmediate(() => setImmediate(() => report({ duringTurn, afterTurn, all: writes })));
      }));
    `);
    expect(child.code).to.equal(0);
    const { duringTurn, afterTurn, all } = JSON.parse(child.stdout) as {
      duringTurn: number;
      afterTurn: string[];
      all: string[];
    };
    expect(duringTurn).to.equal(0);
    expect(afterTurn).to.have.length(1);
    expect(lines(afterTurn[0]!).map((l) => l.replace(/^\S+ /, ""))).to.deep.equal([
      "INFO first",
      "DEBUG second",
      "INFO third",
    ]);
    expect(all).to.have.length(2);
    expect(all[1]).to.match(/^\S+ INFO next turn\n$/);
  });

  it("writes a warning or an error at once, with the lines that waited before it, in order", async function () {
    const child = await runChild(`
      const logger = createLogger("info");
      logger.info("waiting");
      logger.warn("careful");
      const afterWarn = [...writes];
      logger.error("broken", new Error("boom"));
      const afterError = [...writes];
      report({ afterWarn, afterError });
    `);
    expect(child.code).to.equal(0);
    const { afterWarn, afterError } = JSON.parse(child.stdout) as {
      afterWarn: string[];
      afterError: string[];
    };
    expect(afterWarn).to.have.length(1);
    expect(lines(afterWarn[0]!).map((l) => l.replace(/^\S+ /, ""))).to.deep.equal([
      "INFO waiting",
      "WARN careful",
    ]);
    expect(afterError).to.have.length(2);
    expect(afterError[1]).to.match(/^\S+ ERROR broken: boom\n/);
  });

  it("writes nothing below its level", async function () {
    const child = await runChild(`
      const logger = createLogger("warn");
      logger.debug("hidden");
      logger.info("hidden too");
      setImmediate(() => setImmediate(() => report({ writes })));
    `);
    expect(JSON.parse(child.stdout)).to.deep.equal({ writes: [] });
  });

  it("writes what is pending before the process exits, even at once after the line", async function () {
    const child = await runChild(`
      const logger = createLogger("info");
      logger.info("last words");
      process.exit(3);
    `);
    expect(child.code).to.equal(3);
    expect(lines(child.stderr).map((l) => l.replace(/^\S+ /, ""))).to.deep.equal(["INFO last words"]);
  });
});
