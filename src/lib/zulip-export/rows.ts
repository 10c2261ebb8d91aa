import type { Knex } from "knex";

/** A database row as the driver gives it. */
export type Row = Record<string, unknown>;

/** Rows read per query: tables are read in pages, never whole. */
export const PAGE_SIZE = 1000;

/**
 * The rows of a query in pages ordered by `key` (a unique, increasing column), each page
 * read with its own query (keyset pagination): memory holds one page at a time.
 */
export async function* pages(
  query: () => Knex.QueryBuilder,
  key: string,
  pageSize = PAGE_SIZE,
): AsyncIterable<Row[]> {
  let after: number | null = null;
  for (;;) {
    const q = query().orderBy(key).limit(pageSize);
    if (after !== null) void q.where(key, ">", after);
    const rows = (await q) as Row[];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1]!;
    after = Number(last[key.includes(".") ? key.slice(key.indexOf(".") + 1) : key]);
  }
}

/** How a chatd table's columns become a Zulip table's fields. */
export interface TableMap {
  /** Foreign keys: chatd `x_id` is Zulip's `x` (Django's model_to_dict names a foreign key by its field). */
  foreignKeys?: readonly string[];
  /** Other renames, chatd column to Zulip field. */
  rename?: Readonly<Record<string, string>>;
  /** Columns Zulip has no field for, kept under `chatd_<column>` for a lossless round trip. */
  chatdOnly?: readonly string[];
  /** Columns left out (secrets, work-queue bookkeeping). */
  omit?: readonly string[];
  /** JSON text columns written decoded. */
  json?: readonly string[];
}

/** The boolean columns of a table (SQLite hands booleans over as 0/1; Zulip writes true/false). */
export async function booleanColumns(knex: Knex, table: string): Promise<Set<string>> {
  const info = (await knex(table).columnInfo()) as unknown as Record<string, { type: string }>;
  return new Set(
    Object.entries(info)
      .filter(([, c]) => /^bool/i.test(c.type))
      .map(([name]) => name),
  );
}

/** Reads a JSON text column (SQLite) or a decoded one (PostgreSQL). */
export function decodeJson(value: unknown): unknown {
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Numbers as numbers (PostgreSQL gives bigints as strings). */
function plain(value: unknown): unknown {
  if (typeof value === "string" && /^-?\d+$/.test(value) && value.length < 16) return Number(value);
  return value;
}

/** A chatd row as a Zulip export row. */
export function convertRow(row: Row, map: TableMap, booleans: ReadonlySet<string>): Row {
  const out: Row = {};
  for (const [column, raw] of Object.entries(row)) {
    if (map.omit?.includes(column)) continue;
    let value: unknown = booleans.has(column) ? (raw === null ? null : raw === true || raw === 1) : raw;
    if (map.json?.includes(column)) value = decodeJson(value);
    let name = column;
    if (map.chatdOnly?.includes(column)) name = `chatd_${column}`;
    else if (map.rename?.[column] !== undefined) name = map.rename[column];
    else if (map.foreignKeys?.includes(column)) name = column.replace(/_id$/, "");
    out[name] = typeof value === "string" && BIGINT_COLUMNS.has(column) ? plain(value) : value;
  }
  return out;
}

/** bigint columns PostgreSQL returns as strings. */
const BIGINT_COLUMNS = new Set([
  "date_created",
  "date_joined",
  "date_sent",
  "last_edit_time",
  "last_moved_time",
  "last_active_message_id",
  "timestamp",
  "last_connected_time",
  "last_active_time",
  "last_update_id",
  "changed_at",
  "last_updated",
  "date_muted",
  "scheduled_timestamp",
  "create_time",
  "size",
]);

/** Every `can_…_group_id` column of a table: group-setting foreign keys (Zulip's `can_…_group`). */
export const groupSettingColumns = (row: Row) =>
  Object.keys(row).filter((c) => /^(can_|create_|direct_message_).*_id$/.test(c));
