import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";

/**
 * test/ holds tests and what they use; programs that are not tests (the benchmark, the fault
 * runs, generators) live in tools/, and a test placed in tools/ would never run.
 */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * The .ts files a file uses: those it imports by relative path, and those it names as a
 * compiled module to load into a process (`join(..., "module-recorder.js")`).
 */
function used(file: string, all: readonly string[]): string[] {
  const text = readFileSync(file, "utf8");
  const imported = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)\.js"/g)]
    .map((match) => resolve(dirname(file), `${match[1]}.ts`))
    .filter((path) => existsSync(path));
  const named = [...text.matchAll(/"([\w-]+)\.js"/g)].flatMap((match) =>
    all.filter((path) => basename(path) === `${match[1]}.ts`),
  );
  return [...imported, ...named];
}

describe("the test folder", function () {
  it("holds only tests, the setup mocha loads, and files a test uses", function () {
    const files = tsFiles(join(ROOT, "test"));
    const reached = new Set<string>();
    const pending = [
      ...files.filter((file) => file.endsWith(".test.ts")),
      join(ROOT, "test", "helpers", "setup.ts"),
    ];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      pending.push(...used(file, files));
    }
    expect(
      files.filter((file) => !reached.has(file)).map((file) => relative(ROOT, file)),
      "files under test/ no test uses",
    ).to.deep.equal([]);
  });

  it("tools/ holds no test (mocha runs only dist/test/**/*.test.js)", function () {
    const tests = tsFiles(join(ROOT, "tools")).filter((file) => file.endsWith(".test.ts"));
    expect(tests.map((file) => relative(ROOT, file))).to.deep.equal([]);
  });
});
