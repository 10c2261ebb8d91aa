import type { ServerEvent } from "./api/types.js";

/**
 * Timings `npm run bench` reads from the page (performance marks and measures): when the
 * first feed was drawn, and how long each live message took from its event's arrival to
 * the screen. Per-message timings are kept only when the benchmark asks (window.__chatdPerf),
 * so a page open all day records nothing.
 */
const enabled = (globalThis as { __chatdPerf?: boolean }).__chatdPerf === true;
const arrivals = new Map<number, number>();
let feedDrawn = false;

/** After the browser has painted (a frame, then the task after it). */
const afterPaint = (fn: () => void) => requestAnimationFrame(() => setTimeout(fn, 0));

export function noteFeedDrawn(): void {
  if (feedDrawn) return;
  feedDrawn = true;
  afterPaint(() => performance.mark("chatd:feed-drawn"));
}

export function noteEventsArrived(events: readonly ServerEvent[]): void {
  if (!enabled) return;
  const now = performance.now();
  for (const event of events) if (event.type === "message") arrivals.set(event.message.id, now);
}

export function noteMessageDrawn(id: number): void {
  if (!enabled) return;
  const arrived = arrivals.get(id);
  if (arrived === undefined) return;
  arrivals.delete(id);
  afterPaint(() => performance.measure("chatd:live-drawn", { start: arrived, end: performance.now() }));
}
