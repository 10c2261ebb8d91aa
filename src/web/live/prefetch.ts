import type { LiveApi, CallParams, MessagesAnswer } from "./api.js";

/**
 * The first view's messages, asked for while the page registers rather than after it:
 * the feed is drawn when the slower of the two answers, not after both. One question,
 * answered once, to the same question asked again (loadInitial's parameters).
 *
 * The answer was read before the event queue existed, so a message sent in between is in
 * neither: it is marked `prefetched`, and loadInitial fetches what follows it at once.
 */
export class Prefetch {
  private entry: { key: string; answer: Promise<MessagesAnswer> } | null = null;

  constructor(private readonly call: LiveApi["messages"]) {}

  start(params: CallParams): void {
    const answer = this.call(params);
    // Unused (the view changed, the question was not asked again): its failure is nobody's.
    answer.catch(() => undefined);
    this.entry = { key: JSON.stringify(params), answer };
  }

  /** The messages call: the prefetched answer for its question, once; every other question goes out. */
  readonly messages: LiveApi["messages"] = (params) => {
    const entry = this.entry;
    this.entry = null;
    if (entry?.key === JSON.stringify(params)) return entry.answer.then((a) => ({ ...a, prefetched: true }));
    return this.call(params);
  };
}
