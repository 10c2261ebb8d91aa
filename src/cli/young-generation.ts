import { setFlagsFromString } from "node:v8";

/**
 * Start-up loads a few hundred modules whose objects nearly all survive: V8 takes that
 * for a busy program and doubles its young generation after scavenges until it reaches
 * 2 x 16 MB, and an idle server then keeps those pages (about 10 MB of RSS measured).
 * So until the server listens (or a command runs) the young generation may not grow;
 * afterwards V8 sizes it as usual, growing it under load (a 1 MB young generation made
 * each POST /messages cost 15-30 % more CPU) and shrinking it again when idle.
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
