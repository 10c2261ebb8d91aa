import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import type { Command } from "commander";
import { createProgram } from "../../src/cli/program.js";
import { ROOT } from "../helpers/cli.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");

describe("the README", function () {
  it("runs chatd in its shell examples as `npx chatd` (a clone has no chatd on PATH)", function () {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const lines = blocks.flatMap((block) => block.split("\n"));
    expect(lines.some((line) => line.startsWith("npx chatd "))).to.equal(true);
    expect(lines.filter((line) => /^\s*chatd\s/.test(line))).to.deep.equal([]);
  });

  it("lists every command in the command-line table", function () {
    const names = (cmd: Command, prefix: string): string[] =>
      cmd.commands.length === 0
        ? [prefix]
        : cmd.commands.flatMap((sub) => names(sub, prefix ? `${prefix} ${sub.name()}` : sub.name()));
    for (const name of names(createProgram(), "")) expect(readme).to.contain(`| \`chatd ${name}`);
  });
});
