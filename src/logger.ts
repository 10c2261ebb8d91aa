import type { LogLevel } from "./config.js";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
  /** Whether entries of this level are written (callers skip building those that are not). */
  enabled(level: LogLevel): boolean;
}

/**
 * One line per entry on stderr, so stdout stays free for command results.
 * Callers pass only what is safe to keep: never API keys, passwords or request bodies.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string, urgent: boolean) => void = toStderr,
): Logger {
  const at = (entryLevel: LogLevel) => RANK[entryLevel] >= RANK[level];
  const emit = (entryLevel: LogLevel, message: string) => {
    if (at(entryLevel)) {
      const line = `${new Date().toISOString()} ${entryLevel.toUpperCase()} ${message}\n`;
      write(line, RANK[entryLevel] >= RANK.warn);
    }
  };
  return {
    debug: (m) => emit("debug", m),
    info: (m) => emit("info", m),
    warn: (m) => emit("warn", m),
    error: (m, err) => {
      if (err === undefined) return emit("error", m);
      const frames = stackFrames(err);
      emit("error", `${m}: ${safeErrorMessage(err)}${frames ? `\n${frames}` : ""}`);
    },
    enabled: at,
  };
}

/**
 * Lines go to stderr once per turn of the event loop, all of that turn's together:
 * stderr is synchronous on files and pipes, and a write per request line would block
 * the server that long each time. Warnings and errors go out at once (with what waited
 * before them), and whatever is pending goes out before the process exits.
 */
let pending = "";
let scheduled = false;
let exitHooked = false;

function flushStderr(): void {
  scheduled = false;
  if (pending === "") return;
  const text = pending;
  pending = "";
  process.stderr.write(text);
}

function toStderr(line: string, urgent: boolean): void {
  pending += line;
  if (urgent) return flushStderr();
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", flushStderr);
  }
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushStderr);
  }
}

/** What SQLite's primary result codes mean, for messages that must not quote the failed SQL. */
const SQLITE_MEANINGS: Record<string, string> = {
  SQLITE_BUSY: "database busy",
  SQLITE_LOCKED: "database busy",
  SQLITE_READONLY: "database is read-only",
  SQLITE_CANTOPEN: "cannot open the database file",
  SQLITE_PERM: "permission denied on the database file",
  SQLITE_FULL: "disk full",
  SQLITE_IOERR: "disk I/O error",
  SQLITE_CORRUPT: "database file is corrupt",
  SQLITE_NOTADB: "not a database file",
  SQLITE_CONSTRAINT: "a database constraint failed",
};

/** The SQLite result code of a database error, e.g. SQLITE_BUSY (both drivers set `code`). */
export function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

/**
 * PostgreSQL's SQLSTATE classes (first two characters) and codes, in the same words.
 * Its errors quote the failed statement too (Knex prefixes the SQL to the message).
 */
const POSTGRES_MEANINGS: Record<string, string> = {
  "23": "a database constraint failed",
  "40": "database busy",
  "55P03": "database busy",
  "53100": "disk full",
  "53": "database out of resources",
  "08": "cannot connect to the database",
  "28": "database authentication failed",
  "3D000": "the database does not exist",
  "57": "database server shutting down or unavailable",
  "58": "database server I/O error",
  XX: "database server internal error",
};

/** The SQLSTATE of a PostgreSQL error (pg sets `code` and `severity` on them). */
export function postgresCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; severity?: unknown } | null;
  const code = e?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && typeof e?.severity === "string"
    ? code
    : undefined;
}

/**
 * Whether another process held the write lock longer than the busy timeout: SQLITE_BUSY,
 * or PostgreSQL's lock_not_available (lock_timeout ran out).
 */
export const isBusyError = (err: unknown) =>
  sqliteCode(err)?.startsWith("SQLITE_BUSY") === true || postgresCode(err) === "55P03";

/** The meaning of a database error in words ("database busy"), or undefined for other errors. */
export function databaseFailure(err: unknown): string | undefined {
  const pgCode = postgresCode(err);
  if (pgCode !== undefined) {
    return POSTGRES_MEANINGS[pgCode] ?? POSTGRES_MEANINGS[pgCode.slice(0, 2)] ?? `database error (${pgCode})`;
  }
  const code = sqliteCode(err);
  if (code === undefined) return undefined;
  const primary = code.split("_").slice(0, 2).join("_");
  return SQLITE_MEANINGS[primary] ?? `database error (${primary})`;
}

/**
 * One line about an error that is safe to print or log. A database error's message
 * quotes the failed statement (and could quote its values: password hashes, key
 * hashes), so it is replaced by what the error code means.
 */
export function safeErrorMessage(err: unknown): string {
  const failure = databaseFailure(err);
  if (failure !== undefined) return failure;
  if (err instanceof Error)
    return `${err.name === "Error" ? "" : `${err.name}: `}${err.message.split("\n")[0]}`;
  return String(err);
}

/** The "at ..." lines of an error's stack, without the message it starts with. */
export function stackFrames(err: unknown): string {
  if (!(err instanceof Error) || !err.stack) return "";
  return err.stack
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
}

export const silentLogger: Logger = createLogger("silent");
