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

/** Member names as JSON ("flags" becomes "\"flags\""): a handful, used over and over. */
const encodedKeys = new Map<string, string>();

/**
 * Frozen arrays as JSON. The flags of a message event are one frozen array per flag value,
 * shared by every recipient with those flags (actions/message-write.ts), so each is
 * encoded once rather than once per queue. Only frozen arrays of strings: nothing in
 * them can change.
 */
const encodedArrays = new WeakMap<readonly unknown[], string>();

function encodedValue(value: unknown): string | undefined {
  if (!Array.isArray(value) || !Object.isFrozen(value)) return JSON.stringify(value);
  let encoded = encodedArrays.get(value);
  if (encoded !== undefined) return encoded;
  encoded = JSON.stringify(value);
  if (value.every((member) => typeof member === "string")) encodedArrays.set(value, encoded);
  return encoded;
}

/**
 * A message event's members after `message`, then `id`, and the closing brace: what
 * `JSON.stringify({ ...rest, id }).slice(1)` gives, without copying the event twice.
 */
function messageEventTail(event: Record<string, unknown>, id: number): string {
  let tail = "";
  for (const key in event) {
    if (key === "message" || key === "id") continue;
    const value = encodedValue(event[key]);
    // JSON.stringify leaves out members whose value it cannot encode (undefined, functions).
    if (value === undefined) continue;
    let name = encodedKeys.get(key);
    if (name === undefined) encodedKeys.set(key, (name = JSON.stringify(key)));
    tail += `,${name}:${value}`;
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
