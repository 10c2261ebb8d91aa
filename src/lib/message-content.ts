import { badRequest } from "../errors.js";
import { LIMITS } from "./realm-limits.js";
import { unprintablePosition } from "./channel-validation.js";

/**
 * What POST /messages does to a message's text before anything else (Zulip's
 * normalize_body, truncate_topic, check_stream_topic and the `to` parsers of
 * zerver/actions/message_send.py). Lengths count code points, as Python's len() does.
 */

export const MAX_MESSAGE_LENGTH = LIMITS.max_message_length;
export const MAX_TOPIC_LENGTH = LIMITS.max_topic_length;
export const TRUNCATION_NOTICE = "\n[message truncated]";

// Python's str.isspace() characters (what str.strip() removes); JavaScript's trim() differs
// (it strips U+FEFF but not U+001C..U+001F or U+0085).
const SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_SPACE = new RegExp(`^[${SPACE}]+`, "u");
const TRAILING_SPACE = new RegExp(`[${SPACE}]+$`, "u");

export const pythonStrip = (s: string) => s.replace(LEADING_SPACE, "").replace(TRAILING_SPACE, "");
export const pythonRstrip = (s: string) => s.replace(TRAILING_SPACE, "");

/** The first `n` code points of a string. */
const codePoints = (s: string) => Array.from(s);

/** Zulip's truncate_content: over `max` code points, cut and end with `notice`. */
export function truncateContent(content: string, max: number, notice: string): string {
  const chars = codePoints(content);
  if (chars.length <= max) return content;
  return chars.slice(0, max - codePoints(notice).length).join("") + notice;
}

/**
 * Zulip's normalize_body: trailing whitespace and leading blank lines go (leading spaces
 * stay, they may indent code); empty and NUL-containing messages are refused; long ones
 * are cut to max_message_length with a notice.
 */
export function normalizeContent(raw: string): string {
  const body = raw.replace(TRAILING_SPACE, "").replace(/^\n+/, "");
  if (body.length === 0) throw badRequest("Message must not be empty");
  if (body.includes("\u0000")) throw badRequest("Message must not contain null bytes");
  return truncateContent(body, MAX_MESSAGE_LENGTH, TRUNCATION_NOTICE);
}

/** Zulip's truncate_topic: over 60 code points becomes 57 of them and "...". */
export const truncateTopic = (topic: string) => truncateContent(topic, MAX_TOPIC_LENGTH, "...");

/**
 * A topic as sent: stripped, the empty topic's display names read as the empty topic
 * (Zulip's maybe_rename_general_chat_to_empty_topic / maybe_rename_no_topic_to_empty_topic),
 * and refused if it holds unprintable characters (check_stream_topic). Not yet truncated.
 */
export function validateTopic(raw: string, emptyTopicDisplayName: string): string {
  let topic = pythonStrip(raw);
  if (topic === emptyTopicDisplayName || topic === "(no topic)") topic = "";
  const position = unprintablePosition(topic);
  if (position !== null) throw badRequest(`Invalid character in topic, at position ${position}!`);
  return topic;
}

function decodeJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

const isInt = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value);

/**
 * Zulip's extract_stream_indicator: a channel ID (JSON integer, or a one-element list of
 * one) or a name (raw text, or JSON string).
 */
export function extractChannelIndicator(raw: string): string | number {
  const decoded = decodeJson(raw);
  if (!decoded.ok) return raw;
  let data = decoded.value;
  if (Array.isArray(data)) {
    if (data.length !== 1) throw badRequest("Expected exactly one channel");
    data = data[0];
  }
  if (typeof data === "string") return data;
  if (isInt(data)) return data;
  throw badRequest("Invalid data type for channel");
}

/**
 * Zulip's extract_private_recipients: user IDs (JSON list of integers) or emails (JSON
 * list of strings, or comma-separated text), de-duplicated; emails are stripped and
 * empty ones dropped. An empty list passes here.
 */
export function extractDirectRecipients(raw: string): string[] | number[] {
  const decoded = decodeJson(raw);
  let data: unknown = decoded.ok ? decoded.value : raw;
  if (typeof data === "string") data = data.split(",");
  if (!Array.isArray(data)) throw badRequest("Invalid data type for recipients");
  if (data.length === 0) return [];
  const mixed = () => badRequest("Recipient lists may contain emails or user IDs, but not both.");
  if (typeof data[0] === "string") {
    const emails = new Set<string>();
    for (const item of data) {
      if (typeof item !== "string") throw mixed();
      const email = pythonStrip(item);
      if (email !== "") emails.add(email);
    }
    return [...emails];
  }
  if (!isInt(data[0])) throw badRequest("Invalid data type for recipients");
  const ids = new Set<number>();
  for (const item of data) {
    if (!isInt(item)) throw mixed();
    ids.add(item);
  }
  return [...ids];
}

/** Zulip's Client.default_read_by_sender: is this a full UI client, whose sender has read it? */
const UI_CLIENTS = new Set([
  "zulipandroid",
  "zulipios",
  "zulipdesktop",
  "zulipmobile",
  "zulipelectron",
  "zulipterminal",
  "snipe",
  "website",
  "ios",
  "android",
]);

export function defaultReadBySender(clientName: string): boolean {
  const name = clientName.toLowerCase();
  return UI_CLIENTS.has(name) || name.includes("desktop app");
}
