import { readFileSync } from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Stack traces through source maps (the bundle's names src/*.ts), with each map read when
 * a stack first passes through its file. Node's own (--enable-source-maps) reads and keeps
 * the map of every module as it loads: 2.5 MB of an idle server's RSS, measured. The
 * frames are written as node writes them then (lib/internal/source_map/prepare_stack_trace.js).
 */
export function useLazySourceMaps(): void {
  Error.prepareStackTrace = (error: Error, trace: NodeJS.CallSite[]) => {
    const head = isNodeError(error) ? String(error) : Error.prototype.toString.call(error);
    return head + trace.map((site, i) => `\n    at ${mappedFrame(site, trace[i + 1])}`).join("");
  };
}

/** Node's own errors, which name their code in their head line ("TypeError [ERR_...]: ..."). */
const isNodeError = (error: Error) =>
  /^ERR_/.test(String((error as { code?: unknown }).code)) && error.toString !== Error.prototype.toString;

/** Each file's map, or null when it has none. */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = null;
    try {
      const payload = JSON.parse(readFileSync(`${file}.map`, "utf8")) as SourceMapPayload;
      payload.sources = payload.sources.map((source) => resolve(dirname(file), source));
      map = new SourceMap(payload);
    } catch {
      // no map beside it: the frame stays as it is
    }
    maps.set(file, map);
  }
  return map;
}

interface Entry {
  originalSource?: string;
  originalLine?: number;
  originalColumn?: number;
  name?: string;
}

/** V8's own words for a frame (CallSite's toString, which its type does not declare). */
const asWritten = (site: NodeJS.CallSite) => (site as { toString(): string }).toString();

function mappedFrame(site: NodeJS.CallSite, caller: NodeJS.CallSite | undefined): string {
  try {
    const name = site.getFileName();
    const file = name?.startsWith("file://") ? fileURLToPath(name) : name;
    const map = file?.startsWith("/") ? mapOf(file) : null;
    if (!map) return asWritten(site);
    const at = (line: number | null, column: number | null): Entry =>
      map.findEntry((line ?? 0) - 1, (column ?? 0) - 1);
    const { originalSource, originalLine, originalColumn } = at(site.getLineNumber(), site.getColumnNumber());
    if (originalSource === undefined || originalLine === undefined || originalColumn === undefined) {
      return asWritten(site);
    }
    // The name the source map gives the enclosing function, else the caller's call.
    const symbol =
      at(site.getEnclosingLineNumber(), site.getEnclosingColumnNumber()).name ??
      (caller?.getFileName() === name
        ? at(caller.getLineNumber(), caller.getColumnNumber()).name
        : undefined);
    const prefix = site.isAsync() ? "async " : site.isConstructor() ? "new " : "";
    const typeName = site.getTypeName();
    const fnName = site.getFunctionName() ?? site.getMethodName();
    const ownName = `${typeName !== null && typeName !== "global" ? `${typeName}.` : ""}${fnName || "<anonymous>"}`;
    return `${prefix}${symbol || ownName} (${originalSource}:${originalLine + 1}:${originalColumn + 1})`;
  } catch {
    return asWritten(site);
  }
}
