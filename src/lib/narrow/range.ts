import type { Knex } from "knex";
import { badRequest } from "../../errors.js";
import { MESSAGE_FLAG_BITS as FLAG } from "../message-flags.js";
import { narrowIdColumn, narrowQuery, type NarrowScope, type ResolvedNarrow } from "./build.js";

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the `newest` anchor. */
export const NEWEST_ANCHOR = 10_000_000_000_000_000;
export const MAX_MESSAGES_PER_FETCH = 5000;

export type AnchorParam = number | "newest" | "oldest" | "first_unread";

/** Parses the `anchor` parameter (an ID, newest, oldest, first_unread); IDs are clamped. */
export function parseAnchor(raw: string): AnchorParam {
  if (raw === "newest" || raw === "oldest" || raw === "first_unread") return raw;
  if (!/^-?\d+$/.test(raw.trim())) throw badRequest("Invalid anchor");
  const value = Number(raw.trim());
  if (value < 0) return 0;
  return Math.min(value, NEWEST_ANCHOR);
}

/** Checks num_before / num_after / include_anchor as Zulip does. */
export function validateRange(numBefore: number, numAfter: number, includeAnchor: boolean): void {
  if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) {
    throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  }
  if (numBefore > 0 && numAfter > 0 && !includeAnchor) {
    throw badRequest("The anchor can only be excluded at an end of the range");
  }
}

/**
 * The first unread message in the narrow (Zulip's first_unread anchor): only messages
 * the user received, not in muted topics, nor in muted channels unless the narrow
 * names a channel. NEWEST_ANCHOR if none.
 */
/** The anchor as a message ID: newest and oldest are the ends, first_unread is looked up. */
export async function resolveAnchor(
  scope: NarrowScope,
  narrow: ResolvedNarrow,
  anchor: AnchorParam,
): Promise<number> {
  if (anchor === "newest") return NEWEST_ANCHOR;
  if (anchor === "oldest") return 0;
  if (anchor === "first_unread") return firstUnreadAnchor(scope, narrow);
  return anchor;
}

export async function firstUnreadAnchor(scope: NarrowScope, narrow: ResolvedNarrow): Promise<number> {
  const qb = narrowQuery(scope, narrow, { userMessagesOnly: true })
    .clearSelect()
    .select("m.id as id")
    .whereRaw(`(um.flags & ${FLAG.read}) = 0`);
  const userId = scope.user.id;
  const knex = scope.knex;
  if (!narrow.namesChannel) {
    const muted = [...scope.world.channels.subscriptionsOf(userId)]
      .filter((s) => Boolean(s.active) && Boolean(s.is_muted))
      .map((s) => s.stream_id);
    if (muted.length > 0) {
      qb.where(function () {
        this.whereNull("m.stream_id").orWhereNotIn("m.stream_id", muted);
      });
    }
  }
  qb.whereNotExists(function () {
    this.select(knex.raw("1"))
      .from("user_topics as ut")
      .where({ "ut.user_id": userId, "ut.visibility_policy": 1 })
      .whereRaw("ut.stream_id = m.stream_id")
      .whereRaw("ut.topic_key = m.topic_key");
  });
  const row = (await qb.orderBy("um.message_id", "asc").first()) as { id: number } | undefined;
  return row?.id ?? NEWEST_ANCHOR;
}

export interface RangeRequest {
  anchor: number;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
}

export interface RangeRow {
  id: number;
  /** The user's flag bits; null for a message it never received (historical). */
  flags: number | null;
}

export interface RangeResult {
  /** Ascending by ID. */
  rows: RangeRow[];
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
  historyLimited: boolean;
}

/**
 * The narrow's messages around an anchor (Zulip's limit_query_to_range and
 * post_process_limited_query): at most num_before before and num_after after, with the
 * anchor itself if include_anchor. At most two queries.
 */
export async function fetchRange(
  scope: NarrowScope,
  narrow: ResolvedNarrow,
  request: RangeRequest,
  options: { userMessagesOnly?: boolean } = {},
): Promise<RangeResult> {
  const { anchor, numBefore, includeAnchor } = request;
  const anchoredToLeft = anchor === 0;
  const anchoredToRight = anchor >= NEWEST_ANCHOR;
  const numAfter = anchoredToRight ? 0 : request.numAfter;
  const base = () => narrowQuery(scope, narrow, options);
  const id = narrowIdColumn(narrow, options);
  const run = async (qb: Knex.QueryBuilder) => (await qb) as RangeRow[];

  let fetched: RangeRow[] = [];
  if (numBefore > 0 && numAfter > 0) {
    const before = await run(base().where(id, "<", anchor).orderBy(id, "desc").limit(numBefore));
    const after = await run(
      base()
        .where(id, ">=", anchor)
        .orderBy(id, "asc")
        .limit(numAfter + 1),
    );
    fetched = [...before, ...after];
  } else if (numBefore > 0) {
    const qb = includeAnchor
      ? base()
          .where(id, "<=", anchor)
          .limit(numBefore + 1)
      : base().where(id, "<", anchor).limit(numBefore);
    fetched = await run(qb.orderBy(id, "desc"));
  } else if (numAfter > 0) {
    const qb = includeAnchor
      ? base()
          .where(id, ">=", anchor)
          .limit(numAfter + 1)
      : base().where(id, ">", anchor).limit(numAfter);
    fetched = await run(qb.orderBy(id, "asc"));
  } else if (includeAnchor) {
    fetched = await run(base().where(id, anchor));
  }
  fetched.sort((a, b) => a.id - b.id);

  let beforeRows: RangeRow[];
  let anchorRows: RangeRow[] = [];
  let afterRows: RangeRow[] = [];
  if (anchoredToRight) {
    beforeRows = fetched;
  } else {
    beforeRows = fetched.filter((r) => r.id < anchor);
    anchorRows = fetched.filter((r) => r.id === anchor);
    afterRows = fetched.filter((r) => r.id > anchor);
  }
  if (numBefore > 0) beforeRows = beforeRows.slice(-numBefore);
  let rows = includeAnchor ? [...beforeRows, ...anchorRows] : beforeRows;
  if (numAfter > 0) {
    afterRows = afterRows.slice(0, numAfter);
    rows = [...rows, ...afterRows];
  }
  return {
    rows: rows.map((r) => ({ id: Number(r.id), flags: r.flags === null ? null : Number(r.flags) })),
    foundAnchor: anchorRows.length === 1,
    foundOldest: anchoredToLeft || beforeRows.length < numBefore,
    foundNewest: anchoredToRight || afterRows.length < numAfter,
    historyLimited: false,
  };
}

/**
 * The narrow's messages among `ids` (GET /messages with message_ids), ascending: the
 * user's own, or a channel's history it may read when the narrow names the channel.
 */
export async function fetchIds(
  scope: NarrowScope,
  narrow: ResolvedNarrow,
  ids: readonly number[],
): Promise<RangeRow[]> {
  const unique = [...new Set(ids)];
  const id = narrowIdColumn(narrow);
  const rows: RangeRow[] = [];
  for (let i = 0; i < unique.length; i += 500) {
    rows.push(...((await narrowQuery(scope, narrow).whereIn(id, unique.slice(i, i + 500))) as RangeRow[]));
  }
  return rows
    .map((r) => ({ id: Number(r.id), flags: r.flags === null ? null : Number(r.flags) }))
    .sort((a, b) => a.id - b.id);
}
