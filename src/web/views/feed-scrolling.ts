import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { client } from "../app.js";
import { loadNewer, loadOlder } from "../live/fetch.js";
import type { MessageList } from "../model/messages.js";

/** Scrolled this close to an end, the next batch is fetched. */
const EDGE_PX = 600;
/** This close to the bottom counts as at the bottom (new messages then keep it in view). */
const BOTTOM_PX = 40;

/** A message on screen and how far below the feed's top edge it was (kept there when messages are added above). */
interface Mark {
  id: string;
  offset: number;
}

const articlesOf = (el: HTMLElement) => el.querySelectorAll<HTMLElement>("article[data-message-id]");

/** The first message whose bottom is below the feed's top edge (articles are in order: a binary search). */
function firstOnScreen(el: HTMLElement): Mark | null {
  const articles = articlesOf(el);
  const top = el.getBoundingClientRect().top;
  let low = 0;
  let high = articles.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (articles[mid]!.getBoundingClientRect().bottom > top) high = mid;
    else low = mid + 1;
  }
  const found = articles[low];
  return found ? { id: found.dataset.messageId!, offset: found.getBoundingClientRect().top - top } : null;
}

/** Where an element is inside the scrolled feed, from its top. */
function offsetWithin(target: HTMLElement, el: HTMLElement): number {
  return target.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop;
}

const atBottom = (el: HTMLElement) => el.scrollHeight - el.scrollTop - el.clientHeight < BOTTOM_PX;

/**
 * The feed's scrolling: it opens at the list's anchor (the first unread message, or a
 * linked one) a third of the way down; messages added above leave what is on screen where
 * it was; new messages at the bottom follow when the bottom was in view; and older or
 * newer messages are fetched near either end, also when the view is too short to scroll.
 * Every check is made after the messages are drawn, never against a DOM not yet updated.
 */
export function useFeedScrolling(
  scroller: { current: HTMLDivElement | null },
  list: MessageList,
  anchor: number | null,
): () => void {
  const positioned = useRef(false);
  const stickToBottom = useRef(false);
  const mark = useRef<Mark | null>(null);

  /** After a failed fetch only the person's "Try again" fetches again (never a loop of failures). */
  const fetchAtEdges = (el: HTMLElement, retrying: boolean) => {
    if (!positioned.current || list.loading.value !== null || (!retrying && list.error.value !== null))
      return;
    if (el.scrollTop < EDGE_PX && !list.foundOldest.value)
      void loadOlder(client, list).catch(() => undefined);
    else if (el.scrollHeight - el.scrollTop - el.clientHeight < EDGE_PX && !list.foundNewest.value)
      void loadNewer(client, list).catch(() => undefined);
  };

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (list.ids.value.length === 0) {
      positioned.current = false;
      mark.current = null;
      return;
    }
    if (!positioned.current) {
      // The list's first batch is drawn a moment before its anchor is known: wait for it.
      if (anchor === null) return;
      const target = el.querySelector<HTMLElement>(`article[data-message-id="${anchor}"]`);
      el.scrollTop = target ? Math.max(0, offsetWithin(target, el) - el.clientHeight / 3) : el.scrollHeight;
      positioned.current = true;
      stickToBottom.current = atBottom(el);
    } else if (stickToBottom.current) {
      el.scrollTop = el.scrollHeight;
    } else if (mark.current) {
      const kept = el.querySelector<HTMLElement>(`article[data-message-id="${mark.current.id}"]`);
      if (kept) {
        el.scrollTop +=
          kept.getBoundingClientRect().top - el.getBoundingClientRect().top - mark.current.offset;
      }
    }
    mark.current = firstOnScreen(el);
    fetchAtEdges(el, false);
  });

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      if (!positioned.current) return;
      stickToBottom.current = atBottom(el);
      mark.current = firstOnScreen(el);
      fetchAtEdges(el, false);
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  }, [list]);

  /** The person's "Try again" after a failed fetch at an end. */
  return () => {
    if (scroller.current) fetchAtEdges(scroller.current, true);
  };
}
