import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "./cli.js";

/**
 * What a process recorded with module-recorder.js, one module a line. A chunk of the
 * server bundle (dist/server/) stands for the modules esbuild put in it: its source map
 * names them, and they are added as the unbundled build would name them
 * (`/dist/src/api/users.js`, `/node_modules/koa/lib/application.js`), so that one check
 * holds for either build.
 */
export function readModuleLog(file: string): string {
  const lines = readFileSync(file, "utf8").split("\n");
  const sources = lines.flatMap((line) => {
    const path = line.startsWith("file:") ? fileURLToPath(line) : line;
    if (!path.startsWith(resolve(ROOT, "dist", "server")) || !existsSync(`${path}.map`)) return [];
    const map = JSON.parse(readFileSync(`${path}.map`, "utf8")) as { sources: string[] };
    return map.sources.map((source) => {
      const absolute = resolve(dirname(path), source);
      const inPackage = absolute.lastIndexOf("/node_modules/");
      if (inPackage >= 0) return absolute.slice(inPackage);
      return `/dist/${absolute.slice(ROOT.length + 1).replace(/\.ts$/, ".js")}`;
    });
  });
  return [...lines, ...sources].join("\n");
}
