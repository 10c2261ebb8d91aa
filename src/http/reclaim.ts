import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Every chunk Node reads from a socket is a fresh buffer outside the V8 heap, freed only
 * when a collection finds it dead, and V8 waits for tens of MiB of them before collecting:
 * a large upload left RSS about 30 MiB higher (measured: 27-38 MiB for one 100 MB upload).
 * Uploads therefore ask for a young-generation collection (about a millisecond: the chunks
 * never outlive it) after every few MiB received, process-wide, so that garbage stays small.
 */

const RECLAIM_EVERY_BYTES = 4 * 1024 * 1024;

type Collect = (options: { type: "minor" | "major"; execution: "sync" | "async" }) => void;

/** V8's gc(), reached without the --expose-gc command-line flag; null where that fails. */
function loadCollector(): Collect | null {
  try {
    setFlagsFromString("--expose-gc");
    const collect = runInNewContext("gc") as unknown;
    return typeof collect === "function" ? (collect as Collect) : null;
  } catch {
    return null;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}

let collect: Collect | null | undefined;
let sinceLast = 0;

/** Counts bytes of request body just consumed; collects the young generation every few MiB. */
export function noteBodyBytes(bytes: number): void {
  sinceLast += bytes;
  if (sinceLast < RECLAIM_EVERY_BYTES) return;
  sinceLast = 0;
  collect ??= loadCollector();
  collect?.({ type: "minor", execution: "sync" });
}

/**
 * Reads and drops the unread rest of a refused request's body (never buffered), so the
 * client gets the answer; its chunks count as any other body's.
 */
export function drainRequest(req: NodeJS.ReadableStream): void {
  req.on("data", (chunk: Buffer) => noteBodyBytes(chunk.length));
  req.resume();
}
