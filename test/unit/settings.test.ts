import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import ts from "typescript";
import { DEFAULTS_FILE, SETTINGS, envName } from "../../src/config.js";

/**
 * Guards against settings an operator can set to no effect, and against a README that
 * documents other settings or defaults than the server has.
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

interface ReadmeRow {
  key: string;
  env: string;
  default: string;
}

/** The rows of the settings table in the README's "## Configuration" section. */
function readmeSettings(): ReadmeRow[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("\n## Configuration\n");
  expect(start, "README has a ## Configuration section").to.be.greaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const code = (cell: string | undefined) => /^`(.*)`$/.exec(cell?.trim() ?? "")?.[1];
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).slice(1);
      const row = { key: code(cells[0]), env: code(cells[1]), default: code(cells[2]) };
      expect(row.key && row.env && row.default !== undefined, `README row: ${line}`).to.equal(true);
      return row as ReadmeRow;
    });
}

/** How the README writes a default: the empty string as "". */
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

  it("the README's settings table lists exactly the schema's settings", function () {
    const rows = readmeSettings();
    expect(rows.map((row) => row.key).sort()).to.deep.equal(KEYS);
  });

  it("the README gives each setting's environment variable and default", function () {
    for (const row of readmeSettings()) {
      expect(row.env, row.key).to.equal(envName(row.key));
      expect(row.default, row.key).to.equal(documented(DEFAULTS[row.key]));
    }
  });
});
