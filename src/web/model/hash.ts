/**
 * Zulip's URL fragments, so that a link copied in any Zulip client opens the same view
 * here: `#narrow/channel/12-general/topic/lunch.20plans`, `#narrow/dm/3,7-group`,
 * `#narrow/is/starred`, `#narrow/search/...`, `#narrow/channel/12-general/near/345`. Each
 * operand is encoded as Zulip's web app does (percent-encoding with `.` for `%`).
 */

export interface Term {
  operator: string;
  operand: string;
  negated?: boolean;
}

export type View =
  | { kind: "inbox" }
  | { kind: "recent" }
  | { kind: "narrow"; terms: Term[] }
  | { kind: "settings"; section: string }
  | { kind: "organization"; section: string }
  | { kind: "channels"; section: string };

const REPLACEMENTS: ReadonlyMap<string, string> = new Map([
  ["%", "."],
  ["!", ".21"],
  ["'", ".27"],
  ["(", ".28"],
  [")", ".29"],
  ["*", ".2A"],
  [".", ".2E"],
]);

export function encodeHashComponent(text: string): string {
  return encodeURIComponent(text).replace(/[%!'()*.]/g, (c) => REPLACEMENTS.get(c)!);
}

/** The decoded component, or null for one that does not decode (a hand-typed link). */
export function decodeHashComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\./g, "%"));
  } catch {
    return null;
  }
}

/** A channel's part of a URL: "12-general", or the bare ID where the name would not help. */
export function channelSlug(streamId: number, name: string): string {
  const slug = `${streamId}-${name.replace(/ /g, "-")}`;
  const encoded = encodeHashComponent(slug);
  return encoded.length - slug.length > 10 || encoded.length > slug.length * 1.5 ? String(streamId) : encoded;
}

/** A direct message conversation's part: "3-Iago" for one person, "3,7-group" for several. */
export function dmSlug(userIds: readonly number[], fullName?: string): string {
  const ids = [...userIds].sort((a, b) => a - b).join(",");
  const suffix =
    userIds.length === 1 && fullName !== undefined
      ? fullName.replace(/[ "%/<>`\p{C}]+/gu, "-")
      : userIds.length === 1
        ? "user"
        : "group";
  return `${ids}-${suffix}`;
}

/** Canonical operator names (Zulip's older aliases still parse). */
export const OPERATOR_ALIASES: Readonly<Record<string, string>> = {
  stream: "channel",
  subject: "topic",
  "pm-with": "dm",
  "group-pm-with": "dm-including",
  streams: "channels",
};

/** The view a fragment names; unknown fragments open the default view. */
export function parseHash(hash: string): View | null {
  const path = hash.replace(/^#/, "");
  if (path === "") return null;
  const [head = "", ...rest] = path.split("/");
  switch (head) {
    case "inbox":
      return { kind: "inbox" };
    case "recent":
    case "recent_topics":
      return { kind: "recent" };
    case "feed":
    case "all_messages":
      return { kind: "narrow", terms: [] };
    case "settings":
      return { kind: "settings", section: rest[0] ?? "profile" };
    case "organization":
      return { kind: "organization", section: rest[0] ?? "organization-profile" };
    case "channels":
      return { kind: "channels", section: rest[0] ?? "subscribed" };
    case "narrow":
      return parseNarrow(rest);
    default:
      return null;
  }
}

/** Operators whose operand is people: a slug ("3,7-group") or emails. */
const PEOPLE_OPERATORS = new Set(["dm", "dm-including", "sender"]);

/** A channel slug ("12-general", "12"): written encoded. */
const CHANNEL_SLUG = /^\d+(?:-|$)/;
/** A people slug ("3-Iago", "3,7-group"): written as it is (Zulip's emails_to_slug), a name's dots included. */
const PEOPLE_SLUG = /^\d+(?:,\d+)*(?:-|$)/;

/**
 * Zulip's parse_narrow: pairs of operator and operand; an empty operator ends the narrow
 * (a trailing slash), a missing or empty operand (but a topic's) or one that does not
 * decode makes it no narrow at all.
 */
function parseNarrow(parts: string[]): View | null {
  const terms: Term[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    let operator = decodeHashComponent(parts[i]!);
    if (operator === "") break;
    const raw = parts[i + 1];
    if (operator === null || raw === undefined) return null;
    const negated = operator.startsWith("-");
    if (negated) operator = operator.slice(1);
    operator = OPERATOR_ALIASES[operator] ?? operator;
    if (raw === "" && operator !== "topic") return null;
    const operand = PEOPLE_OPERATORS.has(operator) && PEOPLE_SLUG.test(raw) ? raw : decodeHashComponent(raw);
    if (operand === null) return null;
    terms.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return { kind: "narrow", terms };
}

/**
 * The fragment of a narrow. Operands are given as they should appear: channel slugs
 * (already encoded, as channelSlug gives them) and people slugs are written as they are;
 * anything else (a topic, a search, a channel name or an email not resolved) is encoded.
 */
export function narrowHash(terms: readonly Term[]): string {
  if (terms.length === 0) return "#feed";
  const parts = terms.map((t) => {
    const slug =
      t.operator === "channel"
        ? CHANNEL_SLUG.test(t.operand)
        : PEOPLE_OPERATORS.has(t.operator) && PEOPLE_SLUG.test(t.operand);
    const operand = slug ? t.operand : encodeHashComponent(t.operand);
    return `${t.negated ? "-" : ""}${encodeHashComponent(t.operator)}/${operand}`;
  });
  return `#narrow/${parts.join("/")}`;
}

export function viewHash(view: View): string {
  switch (view.kind) {
    case "inbox":
      return "#inbox";
    case "recent":
      return "#recent";
    case "narrow":
      return narrowHash(view.terms);
    case "settings":
      return `#settings/${view.section}`;
    case "organization":
      return `#organization/${view.section}`;
    case "channels":
      return `#channels/${view.section}`;
  }
}

/** "12-general" -> 12; a bare name (old links) -> null, resolved by name by the caller. */
export function slugChannelId(slug: string): number | null {
  const match = /^(\d+)(?:-|$)/.exec(slug);
  return match ? Number(match[1]) : null;
}

/** "3,7-group" -> [3, 7]; emails (old links) -> null, resolved by the caller. */
export function slugUserIds(slug: string): number[] | null {
  const match = /^(\d+(?:,\d+)*)(?:-|$)/.exec(slug);
  return match ? match[1]!.split(",").map(Number) : null;
}
