/** Zulip's MAX_TOPIC_NAME_LENGTH, in code points. */
const MAX_TOPIC_LENGTH = 60;

/** Where unthreaded channel messages go, as Zulip's Slack importer names it. */
export const UNTHREADED_TOPIC = "imported from Slack";

/** Zulip's truncate_content: at most `max` code points, the cut marked with "…". */
function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/**
 * A thread's topic as Zulip's get_zulip_thread_topic_name names it: the thread's date (UTC),
 * a snippet of its first message, and " (2)", " (3)"… when that name is already a thread's.
 * Whitespace runs become one space (a topic name is one line).
 */
export class ThreadTopics {
  private readonly counter = new Map<string, number>();
  private readonly byThread = new Map<string, string>();

  topicFor(threadKey: string, threadTs: number, firstContent: string): string {
    const known = this.byThread.get(threadKey);
    if (known !== undefined) return known;
    const date = new Date(Math.floor(threadTs * 1000)).toISOString().slice(0, 10);
    const text = `${date} ${firstContent}`.replace(/\s+/g, " ").trim();
    const truncated = truncate(text, MAX_TOPIC_LENGTH);
    const collision = this.counter.get(truncated) ?? 0;
    this.counter.set(truncated, collision + 1);
    const count = collision > 0 ? ` (${collision + 1})` : "";
    const topic = truncate(text, MAX_TOPIC_LENGTH - count.length) + count;
    this.byThread.set(threadKey, topic);
    return topic;
  }
}
