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

export function limitHeapGrowth(): void {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) =>
    arg.replace(/_/g, "-").includes(FLAG),
  );
  if (!chosen) setFlagsFromString(`${FLAG}=${SERVING_HEAP_GROWING_PERCENT}`);
}
