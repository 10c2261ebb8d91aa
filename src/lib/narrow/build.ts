import type { Knex } from "knex";
import { RECIPIENT_TYPE, type ChannelRow } from "../../db/channel-rows.js";
import { bool, type UserRow } from "../../db/rows.js";
import type { Config } from "../../config.js";
import { whereMatches } from "../../db/search.js";
import { JsonableError } from "../../errors.js";
import { isGuestRole } from "../../world/roles.js";
import { canAccessChannelHistory, isPrivate, isWebPublic } from "../../permissions/channel-access.js";
import { userOrSystemBotByVisibleEmail } from "../access-users.js";
import { accessibleMessage, type AccessedMessage, type MessageAccessScope } from "../message-access.js";
import { MESSAGE_FLAG_BITS as FLAG } from "../message-flags.js";
import { parseSearchQuery, type SearchTerms } from "../search.js";
import { badNarrow, type NarrowTerm } from "./parse.js";

/**
 * Narrows as SQL (Zulip's NarrowBuilder), in the portable Knex subset; full-text search
 * goes through db/search.ts. The query reads `messages as m`, joined to the
 * user's `user_messages as um` rows. Visibility: a user sees only messages it has a
 * user_messages row for, except in a channel named by the narrow whose history it may
 * read (Zulip's ok_to_include_history), where all the channel's messages are searched
 * and those it never received carry the `read` and `historical` flags.
 */

/** Who reads, through which connection (as for message access); config for dummy addresses. */
export interface NarrowScope extends MessageAccessScope {
  readonly config: Config;
}

type Apply = (qb: Knex.QueryBuilder) => void;

interface Condition {
  negated: boolean;
  apply: Apply;
}

export interface ResolvedNarrow {
  readonly conditions: readonly Condition[];
  /** Search the channel's whole history (rows without user_messages are historical). */
  readonly includeHistory: boolean;
  /** The search terms of `search` operators (combined), if any. */
  readonly search: SearchTerms | null;
  /** Does a non-negated term name a channel (first_unread then keeps muted channels)? */
  readonly namesChannel: boolean;
}

const MENTION_BITS =
  FLAG.mentioned | FLAG.stream_wildcard_mentioned | FLAG.topic_wildcard_mentioned | FLAG.group_mentioned;
const FOLLOWED = 3;
const MUTED = 1;
const UNMUTED = 2;
const RESOLVED_PREFIX = "✔ ";

const flagSet =
  (bit: number): Apply =>
  (qb) =>
    void qb.whereRaw(`(um.flags & ${bit}) <> 0`);
const flagUnset =
  (bit: number): Apply =>
  (qb) =>
    void qb.whereRaw(`(um.flags & ${bit}) = 0`);

const operandText = (operand: NarrowTerm["operand"]) =>
  Array.isArray(operand) ? `[${operand.join(", ")}]` : String(operand);

/**
 * A user of the realm by ID or by an email the caller may see (system bots included): a
 * hidden real email is as unknown as a missing one, so narrows confirm no addresses.
 */
function userByOperand(scope: NarrowScope, operand: string | number): UserRow | undefined {
  const realm = scope.world.realm;
  if (typeof operand === "number") return realm.userOrSystemBot(operand);
  if (/^\d+$/.test(operand.trim())) return realm.userOrSystemBot(Number(operand.trim()));
  return userOrSystemBotByVisibleEmail(scope.config, realm, scope.user, operand);
}

function channelByOperand(scope: NarrowScope, operand: string | number): ChannelRow | undefined {
  const { channels } = scope.world;
  const byId = (id: number) => {
    const channel = channels.channel(id);
    return channel && channel.realm_id === scope.user.realm_id ? channel : undefined;
  };
  if (typeof operand === "number") return byId(operand);
  return channels.channelByName(operand) ?? (/^\d+$/.test(operand) ? byId(Number(operand)) : undefined);
}

async function personalRecipients(knex: Knex, userIds: readonly number[]): Promise<Map<number, number>> {
  const rows = await knex("recipients")
    .where({ type: RECIPIENT_TYPE.PERSONAL })
    .whereIn("type_id", userIds)
    .select<Array<{ id: number; type_id: number }>>("id", "type_id");
  return new Map(rows.map((r) => [r.type_id, r.id]));
}

/** Recipient IDs of the direct message groups of the realm holding all `userIds`. */
async function groupRecipients(
  knex: Knex,
  realmId: number,
  userIds: readonly number[],
  exact: boolean,
): Promise<number[]> {
  const key = [...userIds].sort((a, b) => a - b).join(",");
  const query = knex("direct_message_groups as g")
    .join("recipients as r", "r.type_id", "g.id")
    .where({ "r.type": RECIPIENT_TYPE.DIRECT_MESSAGE_GROUP, "g.realm_id": realmId });
  if (exact) query.where("g.user_ids_key", key);
  const rows = await query.select<Array<{ id: number; key: string }>>("r.id", "g.user_ids_key as key");
  return rows
    .filter((r) => {
      const members = new Set(r.key.split(",").map(Number));
      return userIds.every((id) => members.has(id));
    })
    .map((r) => r.id);
}

/** Direct messages between the user and `other` (both directions; self-DMs if the same). */
async function oneToOne(scope: NarrowScope, other: number): Promise<Apply> {
  const me = scope.user.id;
  const recipients = await personalRecipients(scope.knex, [me, other]);
  const mine = recipients.get(me) ?? 0;
  const theirs = recipients.get(other) ?? 0;
  if (other === me) return (qb) => void qb.where({ "m.sender_id": me, "m.recipient_id": mine });
  return (qb) =>
    void qb.where(function () {
      this.where({ "m.sender_id": me, "m.recipient_id": theirs }).orWhere({
        "m.sender_id": other,
        "m.recipient_id": mine,
      });
    });
}

const isDirect: Apply = flagSet(FLAG.is_private);

/** Muted: a muted channel's messages not in an unmuted or followed topic, and muted topics. */
function mutedCondition(scope: NarrowScope): Apply {
  const mutedRecipients = [...scope.world.channels.subscriptionsOf(scope.user.id)]
    .filter((s) => bool(s.active) && bool(s.is_muted))
    .map((s) => scope.world.channels.channel(s.stream_id)?.recipient_id)
    .filter((id): id is number => typeof id === "number");
  const userId = scope.user.id;
  const topicPolicy = (policies: number[]) =>
    function (this: Knex.QueryBuilder) {
      this.select(scope.knex.raw("1"))
        .from("user_topics as ut")
        .where("ut.user_id", userId)
        .whereRaw("ut.stream_id = m.stream_id")
        .whereRaw("ut.topic_key = m.topic_key")
        .whereIn("ut.visibility_policy", policies);
    };
  return (qb) =>
    void qb.where(function () {
      this.where(function () {
        this.whereIn("m.recipient_id", mutedRecipients).whereNotExists(topicPolicy([UNMUTED, FOLLOWED]));
      }).orWhereExists(topicPolicy([MUTED]));
    });
}

async function resolveTerm(scope: NarrowScope, term: NarrowTerm, search: string[]): Promise<Apply | null> {
  const { operator, operand } = term;
  const text = operandText(operand);
  switch (operator) {
    case "channel":
    case "stream": {
      const channel = channelByOperand(scope, operand as string | number);
      if (!channel) throw badNarrow(`unknown channel ${text}`);
      // "IS NOT NULL" keeps the negated form true for direct messages (NULL stream_id).
      return (qb) => void qb.where("m.stream_id", channel.id).whereNotNull("m.stream_id");
    }
    case "channels":
    case "streams": {
      if (text !== "public" && text !== "web-public") throw badNarrow(`unknown channels operand ${text}`);
      const recipientIds = [...scope.world.channels.channels.values()]
        .filter((c) => c.realm_id === scope.user.realm_id)
        .filter((c) => (text === "public" ? !isPrivate(c) : isWebPublic(c)))
        .map((c) => c.recipient_id)
        .filter((id): id is number => id !== null);
      return (qb) => void qb.whereIn("m.recipient_id", recipientIds);
    }
    case "topic": {
      const key = text.toLowerCase();
      return (qb) => void qb.whereNotNull("m.stream_id").where("m.topic_key", key);
    }
    case "sender": {
      const sender = text === "me" ? scope.user : userByOperand(scope, operand as string | number);
      if (!sender) throw badNarrow(`unknown user ${text}`);
      return (qb) => void qb.where("m.sender_id", sender.id);
    }
    case "dm":
    case "pm-with": {
      const items = Array.isArray(operand)
        ? operand
        : String(operand)
            .split(",")
            .map((s) => s.trim())
            .filter((s) => s !== "");
      const users = items.map((item) => userByOperand(scope, item));
      if (users.length === 0 || users.some((u) => u === undefined)) {
        throw badNarrow(`unknown user in ${Array.isArray(operand) ? text : String(operand)}`);
      }
      const others = [...new Set(users.map((u) => u!.id))].filter((id) => id !== scope.user.id);
      if (others.length <= 1) return oneToOne(scope, others[0] ?? scope.user.id);
      const groups = await groupRecipients(scope.knex, scope.user.realm_id, [scope.user.id, ...others], true);
      return (qb) => void qb.whereIn("m.recipient_id", groups);
    }
    case "dm-including":
    case "group-pm-with": {
      const other = userByOperand(scope, operand as string | number);
      if (!other) throw badNarrow(`unknown user ${text}`);
      const ids = other.id === scope.user.id ? [scope.user.id] : [scope.user.id, other.id];
      const groups = await groupRecipients(scope.knex, scope.user.realm_id, ids, false);
      if (operator === "group-pm-with") return (qb) => void qb.whereIn("m.recipient_id", groups);
      if (other.id === scope.user.id) return isDirect;
      const direct = await oneToOne(scope, other.id);
      return (qb) =>
        void qb.where(function () {
          this.where(function () {
            direct(this);
          }).orWhereIn("m.recipient_id", groups);
        });
    }
    case "is":
      switch (text) {
        case "dm":
        case "private":
          return isDirect;
        case "starred":
          return flagSet(FLAG.starred);
        case "mentioned":
          return flagSet(MENTION_BITS);
        case "alerted":
          return flagSet(FLAG.has_alert_word);
        case "unread":
          return flagUnset(FLAG.read);
        case "resolved":
          return (qb) => void qb.whereNotNull("m.stream_id").where("m.topic", "like", `${RESOLVED_PREFIX}%`);
        case "followed": {
          const userId = scope.user.id;
          return (qb) =>
            void qb.whereExists(function () {
              this.select(scope.knex.raw("1"))
                .from("user_topics as ut")
                .where({ "ut.user_id": userId, "ut.visibility_policy": FOLLOWED })
                .whereRaw("ut.stream_id = m.stream_id")
                .whereRaw("ut.topic_key = m.topic_key");
            });
        }
        case "muted":
          return mutedCondition(scope);
        default:
          throw badNarrow(`unknown 'is' operand ${text}`);
      }
    case "in":
      if (text === "home") {
        const muted = mutedCondition(scope);
        return (qb) => void qb.whereNot((inner: Knex.QueryBuilder) => muted(inner));
      }
      if (text === "all") return null;
      throw badNarrow(`unknown 'in' operand ${text}`);
    case "has":
      switch (text) {
        case "link":
        case "image":
        case "attachment": {
          const column = `m.has_${text}`;
          return (qb) => void qb.where(column, true);
        }
        case "reaction":
          return (qb) =>
            void qb.whereExists(function () {
              this.select(scope.knex.raw("1")).from("reactions as r").whereRaw("r.message_id = m.id");
            });
        default:
          throw badNarrow(`unknown 'has' operand ${text}`);
      }
    case "id": {
      const id = /^\d+$/.test(text) ? Number(text) : NaN;
      if (!Number.isSafeInteger(id) || id > (await maxMessageId(scope.knex)))
        throw badNarrow("Invalid message ID");
      return (qb) => void qb.where("m.id", id);
    }
    case "search":
      // Zulip combines search terms without their `negated` flag.
      search.push(text);
      return null;
    case "near":
      return null;
    default:
      throw badNarrow(`unknown operator ${operator}`);
  }
}

async function maxMessageId(knex: Knex): Promise<number> {
  const row = await knex("messages").max<{ id: number | null }>("id as id").first();
  return Number(row?.id ?? 0);
}

const CONVERSATION_OPERATORS = new Set(["channel", "stream", "topic", "dm", "pm-with"]);

/** Zulip's `with` operator: the terms with the message's current conversation in place. */
async function applyWith(scope: NarrowScope, terms: NarrowTerm[]): Promise<NarrowTerm[]> {
  const withTerms = terms.filter((t) => t.operator === "with");
  if (withTerms.length === 0) return terms;
  if (withTerms.length > 1) {
    throw new JsonableError(
      "Invalid narrow operator combination: Duplicate 'with' operators.",
      "BAD_NARROW",
      400,
    );
  }
  const rest = terms.filter((t) => t.operator !== "with");
  const operand = String(withTerms[0]!.operand);
  const id = /^\d+$/.test(operand) ? Number(operand) : NaN;
  const message = Number.isSafeInteger(id) ? await accessibleMessage(scope, id) : undefined;
  if (!message) {
    const has = (op: string) => rest.some((t) => !t.negated && t.operator === op);
    const definesConversation =
      has("dm") || has("pm-with") || ((has("channel") || has("stream")) && has("topic"));
    if (definesConversation) return rest;
    throw badNarrow("Invalid 'with' operator");
  }
  const kept = rest.filter((t) => !CONVERSATION_OPERATORS.has(t.operator));
  if (message.stream_id !== null) {
    return [
      { operator: "channel", operand: message.stream_id, negated: false },
      { operator: "topic", operand: message.topic, negated: false },
      ...kept,
    ];
  }
  const participants = await directParticipants(scope.knex, message);
  return [{ operator: "dm", operand: participants, negated: false }, ...kept];
}

/** The user IDs of a direct message's conversation. */
async function directParticipants(knex: Knex, message: AccessedMessage): Promise<number[]> {
  const recipient = await knex("recipients")
    .where({ id: message.recipient_id })
    .first<{ type: number; type_id: number } | undefined>("type", "type_id");
  if (!recipient) return [message.sender_id];
  if (recipient.type === RECIPIENT_TYPE.PERSONAL) return [...new Set([message.sender_id, recipient.type_id])];
  const group = await knex("direct_message_groups")
    .where({ id: recipient.type_id })
    .first<{ user_ids_key: string } | undefined>("user_ids_key");
  return group ? group.user_ids_key.split(",").map(Number) : [message.sender_id];
}

/**
 * Checks the terms' operators and operands (BAD_NARROW errors) and turns them into SQL
 * conditions. Reads a few rows (recipients, the `with` message); no per-message query.
 */
export async function resolveNarrow(
  scope: NarrowScope,
  input: readonly NarrowTerm[],
): Promise<ResolvedNarrow> {
  const terms = await applyWith(scope, [...input]);
  const positive = (ops: string[]) => terms.some((t) => !t.negated && ops.includes(t.operator));
  if (positive(["channel", "stream"]) && positive(["dm", "pm-with"])) {
    throw badNarrow("No message can be both a channel message and direct message");
  }
  const search: string[] = [];
  const conditions: Condition[] = [];
  for (const term of terms) {
    const apply = await resolveTerm(scope, term, search);
    if (apply) conditions.push({ negated: term.negated, apply });
  }
  const includeHistory =
    !terms.some((t) => t.operator === "is") &&
    terms.some((t) => {
      if (t.negated) return false;
      if (t.operator === "channel" || t.operator === "stream") {
        const channel = channelByOperand(scope, t.operand as string | number);
        return channel !== undefined && canAccessChannelHistory(scope.world, scope.user, channel);
      }
      return (t.operator === "channels" || t.operator === "streams") && !isGuestRole(scope.user.role);
    });
  const searchTerms = search.length > 0 ? parseSearchQuery(search.join(" ")) : null;
  return {
    conditions,
    includeHistory,
    search: searchTerms,
    namesChannel: positive(["channel", "stream"]),
  };
}

/** The message ID column to filter and order by (the index-friendly one for the base table). */
export function narrowIdColumn(narrow: ResolvedNarrow, options: NarrowQueryOptions = {}): string {
  return narrow.includeHistory && !options.userMessagesOnly ? "m.id" : "um.message_id";
}

export interface NarrowQueryOptions {
  /** Only messages the user received (user_messages rows), even in a channel's history. */
  userMessagesOnly?: boolean;
}

/**
 * The narrow's messages for the user, as a query selecting `id` and `flags` (null for
 * historical messages). Filter and order IDs on narrowIdColumn(narrow, options) so
 * the indexes serve it; each call returns a new builder.
 */
export function narrowQuery(
  scope: NarrowScope,
  narrow: ResolvedNarrow,
  options: NarrowQueryOptions = {},
): Knex.QueryBuilder {
  const { knex, user } = scope;
  const history = narrow.includeHistory && !options.userMessagesOnly;
  const qb = history
    ? // History is searched only under a positive channel(s) term of the user's realm,
      // which already confines the rows (a realm_id filter would lure SQLite off the
      // channel indexes).
      knex("messages as m").leftJoin("user_messages as um", function () {
        this.on("um.message_id", "=", "m.id").andOn("um.user_id", "=", knex.raw("?", [user.id]));
      })
    : knex("user_messages as um").join("messages as m", "m.id", "um.message_id").where("um.user_id", user.id);
  qb.select("m.id as id", "um.flags as flags");
  for (const { negated, apply } of narrow.conditions) {
    if (negated) qb.whereNot((inner: Knex.QueryBuilder) => apply(inner));
    else qb.where((inner: Knex.QueryBuilder) => apply(inner));
  }
  if (narrow.search) {
    if (narrow.search.terms.length === 0) qb.whereRaw("1 = 0");
    else whereMatches(knex, qb, "m.id", narrow.search.terms);
  }
  return qb;
}
