import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { expect } from "chai";
import type { Command } from "commander";
import { createProgram } from "../../src/cli/program.js";
import { ROOT } from "../helpers/cli.js";

const README = join(ROOT, "README.md");
const DOCS = join(ROOT, "docs");
/** The README and every page of docs/. */
const PAGES = [
  README,
  ...readdirSync(DOCS).flatMap((name) => (name.endsWith(".md") ? [join(DOCS, name)] : [])),
];
const read = (file: string) => readFileSync(file, "utf8");
const readme = read(README);

describe("the README", function () {
  it("runs chatd in its shell examples as `npx chatd` (a clone has no chatd on PATH), as the docs do", function () {
    const shellLines = (text: string) =>
      [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n"));
    expect(shellLines(readme).some((line) => line.startsWith("npx chatd "))).to.equal(true);
    for (const page of PAGES) {
      expect(
        shellLines(read(page)).filter((line) => /^\s*chatd\s/.test(line)),
        relative(ROOT, page),
      ).to.deep.equal([]);
    }
  });

  it("lists every command in the command-line table of docs/cli.md", function () {
    const table = read(join(DOCS, "cli.md"));
    const names = (cmd: Command, prefix: string): string[] =>
      cmd.commands.length === 0
        ? [prefix]
        : cmd.commands.flatMap((sub) => names(sub, prefix ? `${prefix} ${sub.name()}` : sub.name()));
    for (const name of names(createProgram(), "")) expect(table).to.contain(`| \`chatd ${name}`);
  });
});
