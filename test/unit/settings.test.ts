import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import ts from "typescript";
import { DEFAULTS_FILE, SETTINGS, envName } from "../../src/config.js";

/**
 * Guards against settings an operator can set to no effect, and against a settings reference
 * (docs/configuration.md) that documents other settings or defaults than the server has.
 */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const KEYS = Object.keys(SETTINGS).sort();
const DEFAULTS = JSON.parse(readFileSync(DEFAULTS_FILE, "utf8")) as Record<string, unknown>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** `config` or `<anything>.config`: how src/ names a Config value. */
function isConfig(node: ts.Node): boolean {
  if (ts.isIdentifier(node)) return node.text === "config";
  return ts.isPropertyAccessExpression(node) && node.name.text === "config";
}

/**
 * Setting keys read in a file: `config.key`, `config["key"]`, and destructuring
 * (`const { key } = app.config`). Parsed, so comments, strings and the schema's own
 * declarations never count as reads.
 */
function settingsRead(file: string): Set<string> {
  const text = readFileSync(file, "utf8");
  const read = new Set<string>();
  if (!text.includes("config")) return read;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isConfig(node.expression)) read.add(node.name.text);
    if (
      ts.isElementAccessExpression(node) &&
      isConfig(node.expression) &&
      ts.isStringLiteral(node.argumentExpression)
    ) {
      read.add(node.argumentExpression.text);
    }
    if (
      ts.isObjectBindingPattern(node) &&
      ts.isVariableDeclaration(node.parent) &&
      node.parent.initializer &&
      isConfig(node.parent.initializer)
    ) {
      for (const element of node.elements) {
        const name = element.propertyName ?? element.name;
        if (ts.isIdentifier(name)) read.add(name.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return read;
}

interface DocumentedRow {
  key: string;
  env: string;
  default: string;
}

/**
 * The rows of a settings table: by default the full one, in docs/configuration.md's
 * "## Configuration" section; the README's short one is under "### Settings".
 */
function documentedSettings(file = "docs/configuration.md", heading = "## Configuration"): DocumentedRow[] {
  const page = readFileSync(join(ROOT, file), "utf8");
  const start = page.indexOf(`\n${heading}\n`);
  expect(start, `${file} has a ${heading} section`).to.be.greaterThan(-1);
  const end = page.indexOf("\n## ", start + 1);
  const section = page.slice(start, end === -1 ? undefined : end);
  const code = (cell: string | undefined) => /^`(.*)`$/.exec(cell?.trim() ?? "")?.[1];
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).slice(1);
      const row = { key: code(cells[0]), env: code(cells[1]), default: code(cells[2]) };
      expect(row.key && row.env && row.default !== undefined, `${file} row: ${line}`).to.equal(true);
      return row as DocumentedRow;
    });
}

/** How the settings reference writes a default: the empty string as "". */
const documented = (value: unknown) => (value === "" ? '""' : String(value));

describe("settings", function () {
  it("every setting in the schema is read somewhere in src/", function () {
    const read = new Set(sourceFiles(join(ROOT, "src")).flatMap((file) => [...settingsRead(file)]));
    expect(
      KEYS.filter((key) => !read.has(key)),
      "settings nothing reads",
    ).to.deep.equal([]);
  });

  it("config/defaults.json gives a default for exactly the schema's settings", function () {
    expect(Object.keys(DEFAULTS).sort()).to.deep.equal(KEYS);
  });

  it("docs/configuration.md's settings table lists exactly the schema's settings", function () {
    const rows = documentedSettings();
    expect(rows.map((row) => row.key).sort()).to.deep.equal(KEYS);
  });

  it("docs/configuration.md gives each setting's environment variable and default", function () {
    for (const row of documentedSettings()) {
      expect(row.env, row.key).to.equal(envName(row.key));
      expect(row.default, row.key).to.equal(documented(DEFAULTS[row.key]));
    }
  });

  it("the README's short settings table names real settings with their environment variable and default", function () {
    const rows = documentedSettings("README.md", "### Settings");
    expect(rows.length).to.be.greaterThan(0);
    for (const row of rows) {
      expect(KEYS, row.key).to.include(row.key);
      expect(row.env, row.key).to.equal(envName(row.key));
      expect(row.default, row.key).to.equal(documented(DEFAULTS[row.key]));
    }
  });
});
