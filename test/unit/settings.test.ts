import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import ts from "typescript";
import { DEFAULTS, SETTINGS, envName, loadConfig, type SettingKey } from "../../src/config.js";

/**
 * Guards against settings an operator can set to no effect, and against documentation
 * that lists other settings or defaults than the server has.
 */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const KEYS = Object.keys(SETTINGS).sort();

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

/** Where the settings table lives: docs/configuration.md, or the README before it moved there. */
const SETTINGS_DOC = ["docs/configuration.md", "README.md"].find((file) => existsSync(join(ROOT, file)))!;

/**
 * The rows of the settings tables (those headed `| Setting | Environment | Default |`) in
 * SETTINGS_DOC, however many tables the settings are grouped into.
 */
function documentedSettings(): DocumentedRow[] {
  const lines = readFileSync(join(ROOT, SETTINGS_DOC), "utf8").split("\n");
  const code = (cell: string | undefined) => /^`(.*)`$/.exec(cell?.trim() ?? "")?.[1];
  const rows: DocumentedRow[] = [];
  let tables = 0;
  let inTable = false;
  for (const line of lines) {
    if (/^\|\s*Setting\s*\|\s*Environment[^|]*\|\s*Default\s*\|/.test(line)) {
      tables += 1;
      inTable = true;
    } else if (!line.startsWith("|")) {
      inTable = false;
    } else if (inTable && line.startsWith("| `")) {
      const cells = line.split(/(?<!\\)\|/).slice(1);
      const row = { key: code(cells[0]), env: code(cells[1]), default: code(cells[2]) };
      expect(row.key && row.env && row.default !== undefined, `${SETTINGS_DOC} row: ${line}`).to.equal(true);
      rows.push(row as DocumentedRow);
    }
  }
  expect(tables, `${SETTINGS_DOC} has a settings table`).to.be.greaterThan(0);
  return rows;
}

/** How the documentation writes a default: the empty string as "". */
const documented = (value: unknown) => (value === "" ? '""' : String(value));

describe("settings", function () {
  it("every setting in the schema is read somewhere in src/", function () {
    const read = new Set(sourceFiles(join(ROOT, "src")).flatMap((file) => [...settingsRead(file)]));
    expect(
      KEYS.filter((key) => !read.has(key)),
      "settings nothing reads",
    ).to.deep.equal([]);
  });

  it("every setting has a default its own validation accepts, and the server starts from those", function () {
    expect(Object.keys(DEFAULTS).sort()).to.deep.equal(KEYS);
    const dir = mkdtempSync(join(tmpdir(), "chatd-settings-"));
    try {
      const { data_dir: _, ...config } = loadConfig({ dataDir: dir, env: {} });
      expect(config).to.deep.equal(DEFAULTS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the documented settings table lists exactly the schema's settings", function () {
    const rows = documentedSettings();
    expect(rows.map((row) => row.key).sort()).to.deep.equal(KEYS);
  });

  it("the documentation gives each setting's environment variable and default", function () {
    for (const row of documentedSettings()) {
      expect(row.env, row.key).to.equal(envName(row.key));
      expect(row.default, row.key).to.equal(documented(DEFAULTS[row.key as SettingKey]));
    }
  });
});
