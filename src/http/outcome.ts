import type { App } from "../app.js";
import { JsonableError, SESSION_CHALLENGE } from "../errors.js";
import { viaSession } from "./prefixes.js";

export interface Failure {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * The answer to a request that failed: a JsonableError's own status, headers and body;
 * anything else is a bug, logged, and answered with a bare 500.
 */
export function failure(app: App, method: string, path: string, err: unknown): Failure {
  if (err instanceof JsonableError) {
    // The web client's requests are never challenged for Basic credentials: a browser would
    // answer with its own password dialog.
    const headers =
      viaSession(path) && err.headers["WWW-Authenticate"]
        ? { ...err.headers, ...SESSION_CHALLENGE }
        : err.headers;
    return { status: err.status, headers, body: err.toBody() };
  }
  app.logger.error(`${method} ${path} failed`, err);
  return {
    status: 500,
    headers: {},
    body: { result: "error", msg: "Internal server error", code: "INTERNAL_SERVER_ERROR" },
  };
}

/**
 * The request's log line (callers build it only when info is logged: a line costs more
 * than the rest of GET /users/me's logging). Path only: query strings and bodies may
 * carry credentials.
 */
export function logRequest(
  app: App,
  method: string,
  path: string,
  status: number,
  startedMs: number,
  userId: unknown,
): void {
  const ms = (performance.now() - startedMs).toFixed(1);
  const who = typeof userId === "number" ? ` user=${userId}` : "";
  app.logger.info(`${method} ${path} ${status} ${ms}ms${who}`);
}
