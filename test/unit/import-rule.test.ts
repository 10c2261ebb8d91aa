import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "../helpers/cli.js";

/** Runs test/lint/layers.mjs over a src/ tree made of `files` (path to text). */
function checkImports(files: Record<string, string>): { status: number | null; stderr: string } {
  const src = mkdtempSync(join(tmpdir(), "chatd-import-rule-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(src, path)), { recursive: true });
      writeFileSync(join(src, path), text);
    }
    const run = spawnSync(process.execPath, [join(ROOT, "test/lint/layers.mjs"), src], { encoding: "utf8" });
    return { status: run.status, stderr: run.stderr };
  } finally {
    rmSync(src, { recursive: true, force: true });
  }
}

/** Base modules that every layer may import, in two folders. */
const BASE_TREE = {
  "config.ts":
    'import type { ChatEvent } from "./wire/events.js";\nexport type Config = { last?: ChatEvent };\n',
  "wire/events.ts": 'import type { WireRecord } from "./records.js";\nexport type ChatEvent = WireRecord;\n',
  "wire/records.ts": "export type WireRecord = Record<string, unknown>;\n",
  "db/tx.ts": 'import type { ChatEvent } from "../wire/events.js";\nexport type Sent = ChatEvent[];\n',
  "events/hub.ts": 'import type { Sent } from "../db/tx.js";\nexport const sent: Sent = [];\n',
  "web/api/types.ts":
    'import type { ChatEvent } from "../../wire/events.js";\nexport type Event = ChatEvent;\n',
};

describe("the import rule (test/lint/layers.mjs)", function () {
  it("accepts folders that import only downwards, and the web client's type imports", function () {
    expect(checkImports(BASE_TREE)).to.deep.equal({ status: 0, stderr: "" });
  });

  it("refuses two folders that import each other, though no file is in a circle and every import is allowed", function () {
    const result = checkImports({
      ...BASE_TREE,
      // Type-only, and base to base: only the folders import each other.
      "wire/queue-options.ts": 'import type { Config } from "../config.js";\nexport type Options = Config;\n',
    });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.equal(
      "Import rule broken (see test/lint/layers.mjs):\n" +
        "  folder circle: config.ts, wire (config.ts imports wire/events.ts; wire/queue-options.ts imports config.ts)\n",
    );
  });

  it("refuses the folder circle of the event types' old place", function () {
    // A base file in the events folder, which imports db: db -> events -> db.
    const result = checkImports({
      "events/types.ts": "export type ChatEvent = { type: string };\n",
      "events/hub.ts": 'import type { Sent } from "../db/tx.js";\nexport const sent: Sent = [];\n',
      "db/tx.ts": 'import type { ChatEvent } from "../events/types.js";\nexport type Sent = ChatEvent[];\n',
    });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.include(
      "  folder circle: db, events (db/tx.ts imports events/types.ts; events/hub.ts imports db/tx.ts)\n",
    );
  });

  it("still refuses an upward import", function () {
    const result = checkImports({
      ...BASE_TREE,
      "actions/send.ts": "export const send = () => undefined;\n",
      "db/outbox.ts": 'import { send } from "../actions/send.js";\nexport const publish = send;\n',
    });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.equal(
      "Import rule broken (see test/lint/layers.mjs):\n" +
        "  db/outbox.ts imports actions/send.ts: db may not import actions\n",
    );
  });
});
