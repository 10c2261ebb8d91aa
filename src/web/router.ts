import { signal } from "@preact/signals";
import { parseHash, type View } from "./model/hash.js";

/** The view the URL's fragment names; back and forward move between fragments as between pages. */
export const DEFAULT_VIEW: View = { kind: "inbox" };
export const currentView = signal<View>(parseHash(location.hash) ?? DEFAULT_VIEW);

export function startRouter(): void {
  window.addEventListener("hashchange", () => {
    currentView.value = parseHash(location.hash) ?? DEFAULT_VIEW;
  });
}

/** Opens a view, as a link to its fragment would (a new history entry). */
export function navigate(hash: string): void {
  if (location.hash === hash) {
    currentView.value = parseHash(hash) ?? DEFAULT_VIEW;
    return;
  }
  location.hash = hash;
}

/**
 * Rewrites the URL for the same view (a canonical slug) without a history entry. A fragment the
 * router has not yet seen (its hashchange still queued) is the person's newer choice: it stays.
 */
export function replaceHash(hash: string): void {
  const routed =
    JSON.stringify(parseHash(location.hash) ?? DEFAULT_VIEW) === JSON.stringify(currentView.value);
  if (routed && location.hash !== hash) history.replaceState(null, "", hash);
}
