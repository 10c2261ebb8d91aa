// Records every module a process loads, one path or URL a line, into the file named by
// CHATD_TEST_MODULE_LOG: `node --import <this file>`. ES modules through a load hook
// (which runs in Node's hooks thread), CommonJS ones by wrapping Module._load.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { isMainThread } from "node:worker_threads";

const logFile = process.env.CHATD_TEST_MODULE_LOG ?? "";
const note = (what: string) => {
  if (logFile) appendFileSync(logFile, `${what}\n`);
};

interface LoadContext {
  format?: string;
}
type NextLoad = (url: string, context: LoadContext) => Promise<unknown>;

/** The ES module load hook. */
export async function load(url: string, context: LoadContext, next: NextLoad): Promise<unknown> {
  note(url);
  return next(url, context);
}

if (isMainThread && logFile) {
  register(import.meta.url);
  const Module = createRequire(import.meta.url)("node:module") as {
    _load: (this: unknown, request: string, parent: unknown, isMain: boolean) => unknown;
    _resolveFilename(request: string, parent: unknown, isMain: boolean): string;
  };
  const original = Module._load;
  Module._load = function (request, parent, isMain) {
    try {
      note(Module._resolveFilename(request, parent, isMain));
    } catch {
      // the load below reports it
    }
    return original.call(this, request, parent, isMain);
  };
}
