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
  app.logger.error(`${method} ${loggablePath(path)} failed`, err);
  return {
    status: 500,
    headers: {},
    body: { result: "error", msg: "Internal server error", code: "INTERNAL_SERVER_ERROR" },
  };
}

/**
 * The request's log line (callers build it only when info is logged: a line costs more
 * than the rest of GET /users/me's logging). Path only, and that made loggable: query
 * strings and bodies may carry credentials.
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
  app.logger.info(`${method} ${loggablePath(path)} ${status} ${ms}ms${who}`);
}

const TEMPORARY = "/user_uploads/temporary/";

/**
 * A request path as logs may keep it. A temporary file URL's token is a credential (it
 * serves the file without a login), so it is replaced, also when the request failed, and
 * whichever way the path spells it: user-uploads.ts decodes each segment (`temporar%79`
 * is `temporary`, `%41` is the token's `A`). The file name stays.
 */
export function loggablePath(path: string): string {
  if (isJoinPath(path)) return JOIN_REDACTED;
  if (!path.startsWith(TEMPORARY) && !(path.includes("%") || path.includes("//"))) return path;
  const segments = path.split("/").filter((segment) => segment !== "");
  if (
    decodedSegment(segments[0] ?? "") !== "user_uploads" ||
    decodedSegment(segments[1] ?? "") !== "temporary"
  ) {
    return path;
  }
  const name = segments.length > 3 ? `/${segments[segments.length - 1]}` : "";
  return `${TEMPORARY}[redacted]${name}`;
}

/** Sign-up links (/join/<token>/) carry a confirmation token: logs never keep it. */
const JOIN_REDACTED = "/join/[redacted]/";
const isJoinPath = (path: string) => decodedSegment(path.split("/")[1] ?? "") === "join";

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
