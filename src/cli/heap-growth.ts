import { setFlagsFromString } from "node:v8";

/**
 * V8 lets the old generation grow to up to four times what survived the last full
 * collection before it collects again (the factor rises with its measured GC speed). A
 * serving chat server's old-generation garbage is mostly polls and answers that lived
 * just long enough to be promoted, so the heap sat at four times its live size: at 2,500
 * simulated people 59 MB were live and 240 MB held (RSS 388 MB). A factor of 1.5 held the
 * heap to 124 MB (RSS 279 MB) at about the same CPU. At saturation, where full collections
 * then come more often, it costs about 15 % of the sends a second (docs/benchmark.md).
 *
 * Set for serving processes only (commands are short-lived); an operator's own
 * --heap-growing-percent (node's own arguments) is never overridden.
 */
const FLAG = "--heap-growing-percent";
export const SERVING_HEAP_GROWING_PERCENT = 50;

/**
 * The flag a serving process sets, or null when its operator chose one on node's command line
 * (node refuses --heap-growing-percent in NODE_OPTIONS, so the command line is the only place).
 */
export function heapGrowthFlag(execArgv: readonly string[]): string | null {
  const chosen = execArgv.some((arg) => arg.replace(/_/g, "-").startsWith(FLAG));
  return chosen ? null : `${FLAG}=${SERVING_HEAP_GROWING_PERCENT}`;
}

export function limitHeapGrowth(): void {
  const flag = heapGrowthFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}
