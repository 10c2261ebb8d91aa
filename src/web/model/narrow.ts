import type { Message } from "../api/types.js";
import { channelSlug, dmSlug, narrowHash, slugChannelId, slugUserIds, type Term } from "./hash.js";
import type { Mention } from "./unread.js";

/**
 * A narrow in canonical form: channels, senders and direct-message partners by ID (as
 * strings), operators by their current names. Parsed from a URL or built by a click, then
 * used to ask the server (`apiNarrow`), to decide whether a live message belongs in the
 * view (`matches`), and to write the URL (`hashOf`).
 */
export type Narrow = readonly Term[];

/** What resolving names needs: the channels and people the client knows. */
export interface Directory {
  readonly myUserId: number;
  channelByName(name: string): { stream_id: number } | undefined;
  channelName(streamId: number): string | undefined;
  userByEmail(email: string): { user_id: number } | undefined;
  fullName(userId: number): string | undefined;
}

/** A stable key for a narrow (the message list cache). */
export const narrowKey = (narrow: Narrow) =>
  JSON.stringify(narrow.map((t) => [t.negated ? `-${t.operator}` : t.operator, t.operand]));

/** "3,7" for the conversation with users 3 and 7 (the caller left out, unless alone). */
export function dmKey(userIds: Iterable<number>, myUserId: number): string {
  const others = [...new Set(userIds)].filter((id) => id !== myUserId).sort((a, b) => a - b);
  return others.length === 0 ? String(myUserId) : others.join(",");
}

/** The direct-message conversation of a message, as dmKey. */
export function messageDmKey(message: Message, myUserId: number): string {
  const recipients = Array.isArray(message.display_recipient)
    ? message.display_recipient.map((r) => r.id)
    : [];
  return dmKey([...recipients, message.sender_id], myUserId);
}

/** Parsed URL terms to canonical ones; names and emails become IDs where known. */
export function canonicalNarrow(terms: readonly Term[], dir: Directory): Narrow {
  return terms.map((term) => {
    const { operator, operand } = term;
    let canonical: string;
    if (operator === "channel") {
      // Zulip's slug_to_stream_id: a known channel's ID, else a channel of that name (old
      // links name it, and a name may look like a slug), else the ID (a channel the user
      // cannot see: the server says so).
      const slugId = slugChannelId(operand);
      const known = slugId !== null && dir.channelName(slugId) !== undefined;
      const id = known ? slugId : (dir.channelByName(operand)?.stream_id ?? slugId);
      canonical = id === null ? operand : String(id);
    } else if (operator === "dm" || operator === "dm-including") {
      const ids = slugUserIds(operand) ?? emailsToIds(operand, dir);
      canonical = ids ? (operator === "dm" ? dmKey(ids, dir.myUserId) : ids.join(",")) : operand;
    } else if (operator === "sender") {
      const ids = slugUserIds(operand) ?? emailsToIds(operand, dir);
      canonical = ids?.length === 1 ? String(ids[0]) : operand === "me" ? String(dir.myUserId) : operand;
    } else if (operator === "topic" || operator === "search") {
      canonical = operand;
    } else {
      canonical = operand.toLowerCase();
    }
    return term.negated ? { operator, operand: canonical, negated: true } : { operator, operand: canonical };
  });
}

function emailsToIds(operand: string, dir: Directory): number[] | null {
  const ids = operand.split(",").map((email) => dir.userByEmail(email.trim())?.user_id);
  return ids.every((id): id is number => id !== undefined) ? ids : null;
}

/**
 * The narrow as GET /messages takes it: IDs as numbers, DM partners as a list. The API's
 * dm-including names one user, so a conversation including several is one term each.
 */
export function apiNarrow(
  narrow: Narrow,
): Array<{ operator: string; operand: string | number | number[]; negated?: boolean }> {
  return narrow
    .filter((t) => t.operator !== "near" && t.operator !== "with")
    .flatMap((t) => {
      let operands: Array<string | number | number[]> = [t.operand];
      if (
        (t.operator === "channel" || t.operator === "sender" || t.operator === "id") &&
        /^\d+$/.test(t.operand)
      ) {
        operands = [Number(t.operand)];
      } else if (t.operator === "dm" && /^\d+(,\d+)*$/.test(t.operand)) {
        operands = [t.operand.split(",").map(Number)];
      } else if (t.operator === "dm-including" && /^\d+(,\d+)*$/.test(t.operand)) {
        operands = t.operand.split(",").map(Number);
      }
      return operands.map((operand) =>
        t.negated ? { operator: t.operator, operand, negated: true } : { operator: t.operator, operand },
      );
    });
}

/** The message to open the view at (`near/ID` or `with/ID`), if the narrow names one. */
export function nearMessageId(narrow: Narrow): number | null {
  const term = narrow.find(
    (t) => (t.operator === "near" || t.operator === "with" || t.operator === "id") && !t.negated,
  );
  return term && /^\d+$/.test(term.operand) ? Number(term.operand) : null;
}

/** The narrow's URL fragment, with channel and people slugs. */
export function hashOf(narrow: Narrow, dir: Directory): string {
  return narrowHash(
    narrow.map((t) => {
      if (t.operator === "channel" && /^\d+$/.test(t.operand)) {
        const id = Number(t.operand);
        return { ...t, operand: channelSlug(id, dir.channelName(id) ?? "unknown") };
      }
      if (
        (t.operator === "dm" || t.operator === "dm-including" || t.operator === "sender") &&
        /^\d+(,\d+)*$/.test(t.operand)
      ) {
        const ids = t.operand.split(",").map(Number);
        return { ...t, operand: dmSlug(ids, ids.length === 1 ? dir.fullName(ids[0]!) : undefined) };
      }
      return t;
    }),
  );
}

const MENTION_FLAGS = [
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "wildcard_mentioned",
];

export const isMentioned = (flags: readonly string[]) => flags.some((flag) => MENTION_FLAGS.includes(flag));

/** How a message's flags mention the user, for unread counting (a wildcard may be muted). */
export const mentionOf = (flags: readonly string[]): Mention =>
  flags.includes("mentioned") ? "direct" : isMentioned(flags) ? "wildcard" : null;

/** A topic marked resolved, as Zulip marks it. */
export const RESOLVED_PREFIX = "✔ ";

/**
 * Whether a message belongs in the narrow: true or false where the client can tell
 * (a live message is then added to the view or not), null where only the server can
 * (full-text search, `has:`), so the view is not changed by live messages.
 */
export function matches(narrow: Narrow, message: Message, myUserId: number): boolean | null {
  let known = true;
  for (const term of narrow) {
    const result = matchesTerm(term, message, myUserId);
    if (result === null) {
      known = false;
      continue;
    }
    if (result === !!term.negated) return false;
  }
  return known ? true : null;
}

function matchesTerm(term: Term, message: Message, myUserId: number): boolean | null {
  const { operand } = term;
  switch (term.operator) {
    case "channel":
      return message.type === "stream" && String(message.stream_id) === operand;
    case "topic":
      return message.type === "stream" && message.subject.toLowerCase() === operand.toLowerCase();
    case "dm":
      return message.type === "private" && messageDmKey(message, myUserId) === operand;
    case "dm-including": {
      if (message.type !== "private") return false;
      const ids = new Set(
        Array.isArray(message.display_recipient) ? message.display_recipient.map((r) => r.id) : [],
      );
      return operand.split(",").every((id) => ids.has(Number(id)));
    }
    case "sender":
      return String(message.sender_id) === operand;
    case "is":
      switch (operand) {
        case "dm":
        case "private":
          return message.type === "private";
        case "starred":
          return message.flags.includes("starred");
        case "mentioned":
          return isMentioned(message.flags);
        case "unread":
          return !message.flags.includes("read");
        case "resolved":
          return message.type === "stream" && message.subject.startsWith(RESOLVED_PREFIX);
        default:
          return null;
      }
    case "near":
    case "with":
      return true;
    case "id":
      return String(message.id) === operand;
    default:
      return null;
  }
}

/** The view's channel and topic, if it is one channel (or one topic of it). */
export function narrowChannel(narrow: Narrow): { streamId: number; topic: string | null } | null {
  const channel = narrow.find((t) => t.operator === "channel" && !t.negated);
  if (!channel || !/^\d+$/.test(channel.operand)) return null;
  const topic = narrow.find((t) => t.operator === "topic" && !t.negated);
  return { streamId: Number(channel.operand), topic: topic?.operand ?? null };
}

/** The view's DM partners, if it is one direct-message conversation. */
export function narrowDm(narrow: Narrow): number[] | null {
  const dm = narrow.find((t) => t.operator === "dm" && !t.negated);
  return dm && /^\d+(,\d+)*$/.test(dm.operand) ? dm.operand.split(",").map(Number) : null;
}
