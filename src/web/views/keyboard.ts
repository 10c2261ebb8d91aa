import { useEffect } from "preact/hooks";
import { client } from "../app.js";
import { navigate } from "../router.js";
import { composeTarget, replyTo, targetChosen } from "./compose-state.js";
import { composeTextarea, searchInput } from "./focus.js";
import { topicHash, dmHash } from "./LeftSidebar.js";
import { closeSidebars } from "./layout.js";

/** Is the person typing into something (then letters are text, not shortcuts)? */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

const feedArticles = () => [
  ...document.querySelectorAll<HTMLElement>(
    '[role="region"][aria-label="Messages"] article[data-message-id]',
  ),
];

/** The message with the keyboard focus, if any. */
function focusedMessage(): HTMLElement | null {
  return document.activeElement?.closest<HTMLElement>("article[data-message-id]") ?? null;
}

/**
 * The message a shortcut acts on: the focused one, else where the person reads: the
 * newest message wholly on screen (the feed opens at the bottom or at the first unread).
 */
function selectedMessage(): HTMLElement | null {
  const focused = focusedMessage();
  if (focused) return focused;
  const feed = document.querySelector<HTMLElement>('[role="region"][aria-label="Messages"]');
  if (!feed) return null;
  const { top, bottom } = feed.getBoundingClientRect();
  const onScreen = feedArticles().filter((a) => {
    const box = a.getBoundingClientRect();
    return box.top >= top - 1 && box.bottom <= bottom + 1;
  });
  return onScreen[onScreen.length - 1] ?? null;
}

/** j/k: the next or previous message; the first press selects the one being read. */
function moveFocus(step: 1 | -1): void {
  const articles = feedArticles();
  const current = focusedMessage();
  const index = current ? articles.indexOf(current) : -1;
  const next =
    index === -1 ? selectedMessage() : articles[Math.max(0, Math.min(articles.length - 1, index + step))];
  if (!next) return;
  next.focus();
  next.scrollIntoView({ block: "nearest" });
}

/** The next conversation with unread messages (Zulip's `n`): the oldest unread topic first. */
function nextUnreadTopic(): string | null {
  let best: { hash: string; maxId: number } | null = null;
  for (const streamId of client.unread.channelsWithUnreads()) {
    const sub = client.world.subscriptions.value.get(streamId);
    if (!sub || sub.is_muted) continue;
    for (const t of client.unread.topics(streamId)) {
      if (client.world.isTopicMuted(streamId, t.topic)) continue;
      if (!best || t.maxId < best.maxId)
        best = { hash: topicHash(streamId, sub.name, t.topic), maxId: t.maxId };
    }
  }
  return best?.hash ?? null;
}

function nextUnreadDm(): string | null {
  const dms = client.unread.dms().sort((a, b) => a.maxId - b.maxId);
  return dms[0] ? dmHash(dms[0].key.split(",").map(Number)) : null;
}

/** Zulip's core keyboard shortcuts. */
export function useKeyboardShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "Escape") {
        closeSidebars();
        if (typing(e.target)) (e.target as HTMLElement).blur();
        return;
      }
      if (typing(e.target)) return;
      const message = () => {
        const id = Number(selectedMessage()?.dataset.messageId);
        return client.messages.value(id);
      };
      switch (e.key) {
        case "c": {
          e.preventDefault();
          if (composeTarget.value?.kind !== "stream") {
            const sub = client.world.sidebarChannels.value[0];
            if (sub) composeTarget.value = { kind: "stream", streamId: sub.stream_id, topic: "" };
          }
          targetChosen.value = true;
          composeTextarea.current?.focus();
          return;
        }
        case "x": {
          e.preventDefault();
          composeTarget.value = { kind: "dm", userIds: [] };
          targetChosen.value = true;
          focusWhenDrawn(() => document.querySelector<HTMLInputElement>('input[aria-label="To"]'));
          return;
        }
        case "r":
        case "Enter": {
          // Enter on a link or a button is theirs (it follows or presses them).
          if (e.key === "Enter" && !focusedMessage() && document.activeElement !== document.body) return;
          const m = message();
          if (!m) return;
          e.preventDefault();
          replyTo(m);
          return;
        }
        case "n": {
          const hash = nextUnreadTopic();
          if (hash) navigate(hash);
          return;
        }
        case "p": {
          const hash = nextUnreadDm();
          if (hash) navigate(hash);
          return;
        }
        case "/":
          e.preventDefault();
          searchInput.current?.focus();
          return;
        case "j":
        case "ArrowDown":
          if (e.key === "ArrowDown" && !focusedMessage()) return;
          e.preventDefault();
          moveFocus(1);
          return;
        case "k":
        case "ArrowUp":
          if (e.key === "ArrowUp" && !focusedMessage()) return;
          e.preventDefault();
          moveFocus(-1);
          return;
        case "i":
          navigate("#inbox");
          return;
        default:
          return;
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}

/**
 * Focuses a field the shortcut's render is about to draw, unless the person has moved the focus
 * meanwhile: a busy page can run the timer late, after they clicked or tabbed elsewhere.
 */
function focusWhenDrawn(field: () => HTMLElement | null): void {
  const from = document.activeElement;
  setTimeout(() => {
    if (document.activeElement === from) field()?.focus();
  }, 0);
}
