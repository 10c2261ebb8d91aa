import type { Config } from "../../config.js";
import type { UserRow } from "../../db/rows.js";
import { badRequest } from "../../errors.js";
import type { RealmSnapshot } from "../../world/realm.js";
import { userOrSystemBotByVisibleEmail } from "../access-users.js";

/**
 * The narrow an event queue was registered with: Zulip's narrow_predicate, a filter on
 * the message events the queue would otherwise get. It is applied to each message as
 * the client receives it, with that user's flags. Unlike GET /messages narrows, it
 * knows only channel (by name), topic, sender (by email) and some `is:` operands.
 */
export type EventNarrow = ReadonlyArray<readonly [operator: string, operand: string]>;

const CHANNEL_OPERATORS = new Set(["channel", "stream"]);
const OPERATORS = new Set([...CHANNEL_OPERATORS, "topic", "sender", "is"]);
const UNSUPPORTED_IS_OPERANDS = new Set(["followed"]);
const RESOLVED_PREFIX = "✔ ";

/** Zulip's check_narrow_for_events: refuses what the filter cannot evaluate. */
export function validateEventNarrow(narrow: EventNarrow): void {
  for (const [operator, operand] of narrow) {
    if (!OPERATORS.has(operator)) throw badRequest(`Operator ${operator} not supported.`);
    if (operator === "is" && UNSUPPORTED_IS_OPERANDS.has(operand)) {
      throw badRequest(`Operand ${operand} not supported.`);
    }
  }
}

/**
 * The narrow as the filter compares it: a `sender` operand naming a user by an address
 * the viewer may see (their real email where visible, the dummy address) becomes the API
 * email their message events carry. Any other operand stays as given and so matches only
 * that API email: a hidden real email matches nothing, as an unknown address does.
 */
export function eventNarrowFor(
  config: Config,
  realm: RealmSnapshot,
  viewer: UserRow,
  narrow: EventNarrow,
): EventNarrow {
  return narrow.map(([operator, operand]) => {
    if (operator !== "sender") return [operator, operand] as const;
    const sender = userOrSystemBotByVisibleEmail(config, realm, viewer, operand);
    return [operator, sender ? sender.email : operand] as const;
  });
}

/** The fields of a message event's message the filter reads. */
export interface NarrowedMessage {
  type: string;
  display_recipient: unknown;
  subject: string;
  sender_email: string;
}

function satisfies(operator: string, operand: string, message: NarrowedMessage, flags: readonly string[]) {
  const isChannel = message.type === "stream";
  if (CHANNEL_OPERATORS.has(operator)) {
    return isChannel && operand.toLowerCase() === String(message.display_recipient).toLowerCase();
  }
  if (operator === "topic") return isChannel && operand.toLowerCase() === message.subject.toLowerCase();
  if (operator === "sender") return operand.toLowerCase() === message.sender_email.toLowerCase();
  if (operator !== "is") return true;
  switch (operand) {
    case "dm":
    case "private":
      return message.type === "private";
    case "starred":
      return flags.includes("starred");
    case "unread":
      return !flags.includes("read");
    case "mentioned":
    case "alerted":
      return flags.includes("mentioned");
    case "resolved":
      return isChannel && message.subject.startsWith(RESOLVED_PREFIX);
    default:
      // Zulip's filter lets other `is:` operands through.
      return true;
  }
}

/** Does a message event, as this client gets it, pass the queue's narrow? */
export function matchesEventNarrow(
  narrow: EventNarrow,
  message: NarrowedMessage,
  flags: readonly string[],
): boolean {
  return narrow.every(([operator, operand]) => satisfies(operator, operand, message, flags));
}
