import type { ReadonlySignal } from "@preact/signals";

/**
 * Redraws the calling component when these signals change, though it reads what they
 * guard some other way (a version counter over a mutable structure): reading a signal's
 * value during render is what subscribes the component.
 */
export function follow(...signals: Array<ReadonlySignal<unknown>>): number {
  let read = 0;
  for (const s of signals) if (s.value !== undefined) read++;
  return read;
}
