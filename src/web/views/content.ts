import { navigate } from "../router.js";
import { emojiChar } from "./emoji.js";
import { openProfile } from "./ProfileCard.js";

/**
 * What the server's HTML needs in a browser without Zulip's sprite sheets: each
 * `<span class="emoji emoji-1f680">` shows its character. Only text changes.
 */
export function enhanceContent(root: HTMLElement): void {
  for (const span of root.querySelectorAll<HTMLElement>("span.emoji")) {
    const code = [...span.classList].find((c) => c.startsWith("emoji-"))?.slice("emoji-".length);
    const char = code ? emojiChar(code) : "";
    if (char) span.textContent = char;
  }
}

/**
 * Clicks inside a message's rendered HTML: links to this app's views open in the app,
 * other links in a new tab (never with access to this page), spoilers open and close,
 * mentions show the person.
 */
export function onContentClick(event: MouseEvent): void {
  const target = event.target as HTMLElement;
  const spoiler = target.closest(".spoiler-header");
  if (spoiler) {
    event.preventDefault();
    const block = spoiler.parentElement;
    const open = block?.classList.toggle("spoiler-open") ?? false;
    block?.querySelector(".spoiler-content")?.setAttribute("aria-hidden", String(!open));
    return;
  }
  const mention = target.closest<HTMLElement>(".user-mention[data-user-id]");
  if (mention && mention.dataset.userId !== "*") {
    event.preventDefault();
    openProfile(Number(mention.dataset.userId));
    return;
  }
  const link = target.closest("a");
  if (!link) return;
  const href = link.getAttribute("href") ?? "";
  const url = new URL(href, location.href);
  if (url.origin === location.origin && url.pathname === "/" && url.hash.startsWith("#")) {
    event.preventDefault();
    navigate(url.hash);
    return;
  }
  if (event.button === 0 && !event.ctrlKey && !event.metaKey) {
    event.preventDefault();
    window.open(url.href, "_blank", "noopener,noreferrer");
  }
}
