import { RawJson } from "../lib/raw-json.js";
import type { QueuedEvent } from "./queue.js";

/**
 * GET /events answers as JSON assembled from parts: a message event's `message` is one
 * object shared by every queue of the same kind of client (presenters/events/messages.ts),
 * so it is encoded once and the same Buffer goes into every poll's answer; only the rest
 * (flags, the event ID) is encoded per queue.
 */
const encodedMessages = new WeakMap<object, Buffer>();

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");
const MESSAGE_KEY = Buffer.from('{"message":');

function encodedMessage(message: object): Buffer {
  let encoded = encodedMessages.get(message);
  if (!encoded) encodedMessages.set(message, (encoded = Buffer.from(JSON.stringify(message))));
  return encoded;
}

/** One event as the client gets it, `id` added, as Buffers to concatenate. */
function encodeEvent({ id, event }: QueuedEvent): Buffer[] {
  const { message, ...rest } = event;
  if (event.type !== "message" || typeof message !== "object" || message === null) {
    return [Buffer.from(JSON.stringify({ ...event, id }))];
  }
  // `{"message":…,` then the other members: their text without its opening brace.
  return [MESSAGE_KEY, encodedMessage(message), COMMA, Buffer.from(JSON.stringify({ ...rest, id }).slice(1))];
}

/** The `events` array of a poll's answer. */
export function encodeEvents(events: readonly QueuedEvent[]): RawJson {
  const chunks: Buffer[] = [OPEN];
  events.forEach((queued, index) => {
    if (index > 0) chunks.push(COMMA);
    chunks.push(...encodeEvent(queued));
  });
  chunks.push(CLOSE);
  return new RawJson(chunks);
}
