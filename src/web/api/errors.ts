/**
 * The API's two ways to fail, DOM-free so that live/ (and its tests, in Node) can tell
 * them apart without importing the browser's fetch wrapper (api/http.ts).
 */

/** An error answer of the API, with Zulip's code (e.g. BAD_EVENT_QUEUE_ID). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly data: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The request never got an answer (offline, server down, aborted by a timeout). */
export class NetworkError extends Error {
  override name = "NetworkError";
}
