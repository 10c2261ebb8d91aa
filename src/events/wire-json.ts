import { RawJson } from "../lib/raw-json.js";
import type { QueuedEvent } from "./queue.js";

/**
 * GET /events answers as JSON assembled from parts: a message event's `message` is one
 * object shared by every queue of the same kind of client (presenters/events/messages.ts),
 * so it is encoded once and the same Buffer goes into every poll's answer; only the rest
 * (flags, the event ID) is encoded per queue, as text written straight after it.
 */
const encodedMessages = new WeakMap<object, Buffer>();

function encodedMessage(message: object): Buffer {
  let encoded = encodedMessages.get(message);
  if (!encoded) encodedMessages.set(message, (encoded = Buffer.from(JSON.stringify(message))));
  return encoded;
}

/**
 * A message event's members after `message`, then `id`, and the closing brace: what
 * `JSON.stringify({ ...rest, id }).slice(1)` gives, without copying the event twice.
 */
function messageEventTail(event: Record<string, unknown>, id: number): string {
  let tail = "";
  for (const key of Object.keys(event)) {
    if (key === "message" || key === "id") continue;
    const value = JSON.stringify(event[key]);
    // JSON.stringify leaves out members whose value it cannot encode (undefined, functions).
    if (value !== undefined) tail += `,${JSON.stringify(key)}:${value}`;
  }
  return `${tail},"id":${id}}`;
}

/** The `events` array of a poll's answer: the shared message Buffers and the text between them. */
export function encodeEvents(events: readonly QueuedEvent[]): RawJson {
  const chunks: Buffer[] = [];
  let text = "[";
  events.forEach(({ id, event }, index) => {
    if (index > 0) text += ",";
    const message = event.message;
    if (event.type !== "message" || typeof message !== "object" || message === null) {
      text += JSON.stringify({ ...event, id });
      return;
    }
    chunks.push(Buffer.from(`${text}{"message":`), encodedMessage(message));
    text = messageEventTail(event, id);
  });
  chunks.push(Buffer.from(`${text}]`));
  return new RawJson(chunks);
}
