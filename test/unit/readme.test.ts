import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { expect } from "chai";
import type { Command } from "commander";
import { createProgram } from "../../src/cli/program.js";
import { ROOT } from "../helpers/cli.js";

const README = join(ROOT, "README.md");
const DOCS = join(ROOT, "docs");
/** The README and every page of docs/: what a reader follows links through. */
const PAGES = [
  README,
  ...readdirSync(DOCS).flatMap((name) => (name.endsWith(".md") ? [join(DOCS, name)] : [])),
];
const read = (file: string) => readFileSync(file, "utf8");
const readme = read(README);

/** A page's text without its fenced code blocks and inline code (a link there is an example). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replace(/ /g, "-");

/** The anchors of a page's headings, numbered as GitHub numbers repeated ones (-1, -2, ...). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

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

  it("is a front door: under 250 lines, none over 200 characters", function () {
    const lines = readme.split("\n");
    expect(lines.length, "README.md lines").to.be.below(250);
    expect(lines.filter((line) => line.length > 200)).to.deep.equal([]);
  });
});

describe("the documentation's links", function () {
  it("point at files that exist, and at headings that exist in them", function () {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const match of prose(read(page)).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
        const [path, anchor] = target.split("#", 2) as [string, string | undefined];
        const file = path === "" ? page : join(dirname(page), decodeURIComponent(path));
        const where = `${relative(ROOT, page)}: ${target}`;
        if (!existsSync(file)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && file.endsWith(".md") && !anchors(read(file)).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it("are checked, not skipped: the README links to the docs and shows the web client", function () {
    // Guards the test above against a link pattern that silently matches nothing.
    expect(readme).to.match(/\]\(docs\/cli\.md#the-first-run\)/);
    expect(readme).to.match(/!\[[^\]]+\]\(docs\/images\/web-client\.png\)/);
    expect(anchors(read(join(DOCS, "operations.md")))).to.include("several-workers-serve---workers-n");
  });
});
