/** Narrows: parse the `narrow` parameter, resolve it for a user, query an anchor window. */
export { badNarrow, narrowParam, parseNarrow, type NarrowTerm } from "./parse.js";
export {
  narrowIdColumn,
  narrowQuery,
  resolveNarrow,
  type NarrowQueryOptions,
  type NarrowScope,
  type ResolvedNarrow,
} from "./build.js";
export {
  validateRange,
  fetchIds,
  fetchRange,
  firstUnreadAnchor,
  MAX_MESSAGES_PER_FETCH,
  NEWEST_ANCHOR,
  parseAnchor,
  resolveAnchor,
  type AnchorParam,
  type RangeRequest,
  type RangeResult,
  type RangeRow,
} from "./range.js";
