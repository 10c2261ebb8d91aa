import { PerformanceObserver, constants } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";

/**
 * Start-up loads a few hundred modules whose objects nearly all survive: V8 takes that
 * for a busy program and doubles its young generation after scavenges until it reaches
 * 2 x 16 MB, and an idle server then keeps those pages (about 10 MB of RSS measured).
 * So until the server listens (or a command runs) the young generation may not grow;
 * afterwards V8 sizes it as usual, growing it under load (a 1 MB young generation made
 * each POST /messages cost 15-30 % more CPU) and shrinking it again when idle.
 *
 * A server keeps holding it after it listens, until it is busy (releaseWhenBusy): the
 * first requests load the realm into caches, which V8 took for the same busy program and
 * grew the young generation to 4 MB for an idle server (2 MB more RSS, measured). Under
 * load the young generation then grows as usual, within a second.
 *
 * `bin/chatd` calls holdDuringStartup() before anything else is loaded; flags an
 * operator gave (NODE_OPTIONS, node's own arguments) are never overridden.
 */

const FLAG = "--semi-space-growth-factor";
/** V8's default growth factor (flag-definitions.h). */
const V8_DEFAULT_FACTOR = 2;

const operatorChose = () =>
  [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.replace(/_/g, "-").includes(FLAG));

let held = false;

export function holdDuringStartup(): void {
  if (held || operatorChose()) return;
  setFlagsFromString(`${FLAG}=1`);
  held = true;
}

/** Start-up is over: V8's own sizing again. */
export function releaseAfterStartup(): void {
  if (!held) return;
  setFlagsFromString(`${FLAG}=${V8_DEFAULT_FACTOR}`);
  held = false;
}

/**
 * Scavenges within one second that mean "busy": with the young generation held at 1 MB,
 * about 50 sends or 500 reads a second. Below that rate a small young generation costs
 * little CPU in all (its cost is per request, 15-30 % of a send's).
 */
export const BUSY_SCAVENGES_PER_SECOND = 5;

/**
 * Keeps holding the young generation while the server is idle, and releases it once the
 * scavenges show load (BUSY_SCAVENGES_PER_SECOND); the observer then stops.
 */
export function releaseWhenBusy(): void {
  if (!held) return;
  const recent: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind !== constants.NODE_PERFORMANCE_GC_MINOR) continue;
      recent.push(entry.startTime);
      while (recent.length > 0 && recent[0]! < entry.startTime - 1000) recent.shift();
      if (recent.length >= BUSY_SCAVENGES_PER_SECOND || !held) {
        observer.disconnect();
        releaseAfterStartup();
        return;
      }
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}
