import type { Knex } from "knex";
import { bulkInsert } from "../../db/insert.js";
import { indexMessages } from "../../db/search.js";
import { plainText } from "../../render/message.js";
import type { Progress } from "./progress.js";
import { quote, type CopiedTable } from "./tables.js";

/**
 * Rows per read and per INSERT: up to 5,000 (memory stays bounded), fewer for wide tables so
 * that a statement's parameters stay well under PostgreSQL's 65535. Statements, not rows, are
 * what a copy's time goes to: 500-row batches made 100,000 messages' copy take minutes.
 */
const MAX_ROWS = 5000;
const MAX_PARAMETERS = 30_000;
const batchSize = (table: CopiedTable) =>
  Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / table.columns.length)));

const selectList = (table: CopiedTable) =>
  table.columns.map((c) => (c === "rowid" && table.implicitRowid ? `rowid AS "rowid"` : quote(c))).join(", ");

/** The source's rows in rowid order, a batch at a time (keyset: each read starts where the last ended). */
async function* sourceBatches(
  source: Knex,
  table: CopiedTable,
): AsyncGenerator<Array<Record<string, unknown>>, void> {
  const size = batchSize(table);
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = await source.raw<Array<Record<string, unknown>>>(
      `SELECT rowid AS "__copy_rowid", ${selectList(table)} FROM ${quote(table.name)}
       WHERE rowid > ? ORDER BY rowid LIMIT ${size}`,
      [after],
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.__copy_rowid as number;
    yield rows.map(({ __copy_rowid: _, ...row }) => row);
    if (rows.length < size) return;
  }
}

/** The PostgreSQL search index of copied messages, built as sending them builds it (FTS5's is contentless: nothing to read back). */
async function indexCopied(
  trx: Knex.Transaction,
  rows: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  await indexMessages(
    trx,
    rows.map((row) => ({
      id: row.id as number,
      topic: row.topic as string,
      text: plainText(row.rendered_content as string),
    })),
  );
}

/** Every serial column's sequence continues after the highest copied value. */
export async function resetSequences(trx: Knex.Transaction): Promise<void> {
  const { rows } = await trx.raw<{ rows: Array<{ table_name: string; column_name: string }> }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
  );
  for (const { table_name, column_name } of rows) {
    await trx.raw(
      `SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT max(${quote(column_name)}) FROM ${quote(table_name)}), 0) + 1, false)`,
      [quote(table_name), column_name],
    );
  }
}

/**
 * Copies every table inside one target transaction: a failure anywhere leaves the target
 * as it was (migrated, empty), and the copy simply runs again. The rows migrations seeded
 * (server secrets) are replaced by the source's, which signed its upload and avatar URLs.
 */
export async function copyTables(
  source: Knex,
  target: Knex,
  tables: readonly CopiedTable[],
  progress: Progress,
): Promise<void> {
  const totals = new Map<string, number>();
  for (const table of tables) {
    const [{ n }] = (await source.raw(`SELECT count(*) AS n FROM ${quote(table.name)}`)) as [{ n: number }];
    totals.set(table.name, n);
  }
  await target.transaction(async (trx) => {
    const names = [...tables.map((t) => quote(t.name)), quote("message_search")].join(", ");
    await trx.raw(`TRUNCATE ${names}`);
    for (const table of tables) {
      const total = totals.get(table.name)!;
      let done = 0;
      const columns = table.columns.map(quote);
      const batches = sourceBatches(source, table);
      // The next batch is read from SQLite while this one is written to PostgreSQL.
      let next = batches.next();
      for (;;) {
        const { value: rows, done: finished } = await next;
        if (finished) break;
        next = batches.next();
        // Awaited above on the next turn; a failed insert must not leave its rejection unhandled.
        next.catch(() => undefined);
        await bulkInsert(
          trx,
          quote(table.name),
          columns,
          rows.map((row) => table.columns.map((c) => row[c] as Knex.Value)),
          rows.length,
        );
        if (table.name === "messages") await indexCopied(trx, rows);
        done += rows.length;
        progress.advance(table.name, done, total);
      }
      progress.finish(table.name, done);
    }
    await resetSequences(trx);
  });
}
