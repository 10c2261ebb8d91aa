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
 * The optimizing compiler (TurboFan) is held off the same while: start-up made it compile
 * node's module loader (URL and path functions, hot while some hundred modules load and
 * never again), which paged its own code in and kept it: 4.7 MB of an idle server's RSS,
 * measured. Held, start-up code runs at most in the baseline tier (Sparkplug); once
 * released, hot code is optimized as usual.
 *
 * `bin/chatd` calls holdDuringStartup() before anything else is loaded; flags an
 * operator gave (NODE_OPTIONS, node's own arguments) are never overridden.
 */

/** What is held: the V8 flags that hold it and release it (V8's defaults, flag-definitions.h). */
const HELD = [
  {
    operatorFlags: /--semi-space-growth-factor/,
    hold: "--semi-space-growth-factor=1",
    release: "--semi-space-growth-factor=2",
  },
  // Node 20 does not enable Maglev: the baseline tier at most.
  { operatorFlags: /--(no-)?(opt|turbofan|max-opt|jitless)\b/, hold: "--no-turbofan", release: "--turbofan" },
] as const;

/** An operator's own choice (NODE_OPTIONS, node's own arguments). */
const operatorChose = (flags: RegExp) =>
  [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => flags.test(arg.replace(/_/g, "-")));

let held: ReadonlyArray<(typeof HELD)[number]> = [];

export function holdDuringStartup(): void {
  if (held.length > 0) return;
  held = HELD.filter(({ operatorFlags }) => !operatorChose(operatorFlags));
  for (const { hold } of held) setFlagsFromString(hold);
}

/** Start-up is over: V8's own sizing and compilers again. */
export function releaseAfterStartup(): void {
  for (const { release } of held) setFlagsFromString(release);
  held = [];
}

/**
 * Scavenges within one second that mean "busy": with the young generation held at 1 MB,
 * about 50 sends or 500 reads a second. Below that rate a small young generation costs
 * little CPU in all (its cost is per request, 15-30 % of a send's).
 */
export const BUSY_SCAVENGES_PER_SECOND = 5;

/**
 * Load lasts; a burst is start-up's last work (the timers' first runs, measured: nine
 * scavenges within 20 ms of listening) or one request's: the scavenges that mean "busy"
 * are spread over at least half a second.
 */
const BUSY_SPREAD_MS = 500;

/**
 * Keeps holding the young generation while the server is idle, and releases it once the
 * scavenges show load (BUSY_SCAVENGES_PER_SECOND); the observer then stops.
 */
export function releaseWhenBusy(): void {
  if (held.length === 0) return;
  const recent: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind !== constants.NODE_PERFORMANCE_GC_MINOR) continue;
      recent.push(entry.startTime);
      while (recent.length > 0 && recent[0]! < entry.startTime - 1000) recent.shift();
      const spread = entry.startTime - recent[0]!;
      if ((recent.length >= BUSY_SCAVENGES_PER_SECOND && spread >= BUSY_SPREAD_MS) || held.length === 0) {
        observer.disconnect();
        releaseAfterStartup();
        return;
      }
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}
