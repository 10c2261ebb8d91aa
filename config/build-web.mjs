// Builds the web client (src/web) into dist/web with esbuild: `npm run build` runs it after
// the TypeScript checks. Every file name carries a hash of its content (the server serves
// them as immutable); manifest.json tells the server which files each page loads. Each
// file is also written gzip- and brotli-compressed, once, so the server never compresses.
import { build } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "web");
const PREFIX = "/static/web/";

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { app: "src/web/main.tsx", pages: "src/web/pages/pages.ts" },
  bundle: true,
  splitting: true,
  format: "esm",
  target: ["es2022", "chrome109", "firefox115", "safari16"],
  minify: true,
  sourcemap: "linked",
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  chunkNames: "chunk-[hash]",
  assetNames: "[name]-[hash]",
  outdir,
  metafile: true,
  legalComments: "linked",
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
});

const outputs = result.metafile.outputs;
/** The output file built from an entry point, with the stylesheet it imports. */
function entry(name) {
  const [file, meta] = Object.entries(outputs).find(
    ([, output]) => output.entryPoint !== undefined && basename(output.entryPoint).startsWith(name.source),
  );
  return {
    js: PREFIX + basename(file),
    css: meta.cssBundle ? PREFIX + basename(meta.cssBundle) : "",
    preload: meta.imports.filter((i) => i.kind === "import-statement").map((i) => PREFIX + basename(i.path)),
  };
}
const app = entry({ source: "main.tsx" });
const pages = entry({ source: "pages.ts" });
const manifest = { app, pages: { js: pages.js, css: pages.css } };
writeFileSync(join(outdir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

for (const file of Object.keys(outputs)) {
  if (!/\.(js|css|map)$/.test(file)) continue;
  const path = join(root, file);
  const body = readFileSync(path);
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
  writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
