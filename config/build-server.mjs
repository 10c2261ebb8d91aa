// Bundles what `chatd serve` and `chatd start` run (src/cli/serve-main.ts) into dist/server with
// esbuild: `npm run build` runs it after tsc. One bundle instead of some 700 module files
// (lodash alone is 255) leaves V8 less to keep for an idle server; code loaded on first use
// (dynamic imports) stays in chunks of its own until then. bin/chatd loads it with source
// maps on, so stack traces name the files in src/.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "server");

/**
 * Native addons; pg, which knex then loads from node_modules as src/db/pg-connection.ts does
 * (one copy, and none in a server on SQLite); and the drivers knex names but chatd never installs.
 */
const EXTERNAL = [
  "sqlite3",
  "better-sqlite3",
  "sharp",
  "pg",
  "pg-native",
  "pg-query-stream",
  "mysql",
  "mysql2",
  "mariadb",
  "oracledb",
  "tedious",
];

/** knex's dialects chatd does not speak: left in node_modules, never loaded. */
const UNUSED_KNEX_DIALECTS =
  /^\.\/(cockroachdb|mssql|mysql|mariadb|mysql2|oracle|oracledb|pgnative|redshift)$/;

const plugins = [
  {
    name: "chatd-server",
    setup(b) {
      // bin/chatd holds the young generation before the bundle loads: one module, one state.
      b.onResolve({ filter: /\/young-generation\.js$/ }, () => ({
        path: "../src/cli/young-generation.js",
        external: true,
      }));
      // A module that finds files beside itself (the password-hash worker, the web client's
      // assets) finds them as from its own place in dist/src/, which tsc has built: the
      // bundle's chunks all sit one level down in dist/server/.
      b.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
        if (!args.path.startsWith(join(root, "src"))) return undefined;
        const text = readFileSync(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const built = `../${relative(root, args.path).replace(/\.ts$/, ".js")}`;
        const url = `new URL(${JSON.stringify(built)}, import.meta.url).href`;
        return { contents: text.replaceAll("import.meta.url", url), loader: "ts" };
      });
      b.onResolve({ filter: UNUSED_KNEX_DIALECTS }, (args) =>
        /knex\/lib\/dialects$/.test(args.resolveDir)
          ? { path: `knex/lib/dialects/${args.path.slice(2)}/index.js`, external: true }
          : undefined,
      );
    },
  },
];

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { serve: "src/cli/serve-main.ts" },
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Whitespace and comments only: names stay as written, for stack traces and logs.
  minifyWhitespace: true,
  minifySyntax: true,
  // Short lines still: node prints the line a crash happened on.
  lineLimit: 160,
  sourcemap: "linked",
  sourcesContent: false,
  outdir,
  external: EXTERNAL,
  plugins,
  // The CommonJS packages in the bundle call require() (node's own modules, the addons).
  banner: {
    js: "import{createRequire as __chatdRequire}from'node:module';const require=__chatdRequire(import.meta.url);",
  },
  logLevel: "warning",
});
