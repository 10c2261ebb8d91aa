import type { LogLevel } from "./config.js";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
}

/**
 * One line per entry on stderr, so stdout stays free for command results.
 * Callers pass only what is safe to keep: never API keys, passwords or request bodies.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  const at = (entryLevel: LogLevel) => RANK[entryLevel] >= RANK[level];
  const emit = (entryLevel: LogLevel, message: string) => {
    if (at(entryLevel)) {
      write(`${new Date().toISOString()} ${entryLevel.toUpperCase()} ${message}\n`);
    }
  };
  return {
    debug: (m) => emit("debug", m),
    info: (m) => emit("info", m),
    warn: (m) => emit("warn", m),
    error: (m, err) => emit("error", err instanceof Error ? `${m}: ${err.stack ?? err.message}` : m),
  };
}

export const silentLogger: Logger = createLogger("silent");
