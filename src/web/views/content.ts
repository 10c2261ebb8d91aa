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
  // A spoiler's header is what opens it: a button to the keyboard and to screen readers.
  for (const header of root.querySelectorAll<HTMLElement>(".spoiler-header")) {
    header.setAttribute("role", "button");
    header.tabIndex = 0;
    header.setAttribute("aria-expanded", String(header.parentElement?.classList.contains("spoiler-open")));
    if (header.textContent?.trim() === "") header.setAttribute("aria-label", "Spoiler");
  }
  // An image preview is named by its file (the server writes no alt text).
  for (const img of root.querySelectorAll<HTMLImageElement>(".message_inline_image img:not([alt])")) {
    const link = img.closest("a");
    img.alt = link?.getAttribute("title") || fileName(link?.getAttribute("href") ?? "") || "Image";
  }
}

function fileName(href: string): string {
  try {
    return decodeURIComponent(href.split("/").pop() ?? "");
  } catch {
    return "";
  }
}

function toggleSpoiler(header: Element): void {
  const block = header.parentElement;
  const open = block?.classList.toggle("spoiler-open") ?? false;
  header.setAttribute("aria-expanded", String(open));
  block?.querySelector(".spoiler-content")?.setAttribute("aria-hidden", String(!open));
}

/** Enter and Space on a spoiler's header open and close it (it is a button). */
export function onContentKeyDown(event: KeyboardEvent): void {
  const header = (event.target as HTMLElement).closest(".spoiler-header");
  if (!header || (event.key !== "Enter" && event.key !== " ")) return;
  event.preventDefault();
  toggleSpoiler(header);
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
    toggleSpoiler(spoiler);
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
