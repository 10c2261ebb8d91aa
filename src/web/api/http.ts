/**
 * The web client's one way to the server: Zulip's API under /json/, authenticated by the
 * session cookie (sent by the browser) and the page's CSRF token. Parameters are sent as
 * Zulip's clients send them: strings as they are, everything else JSON-encoded.
 */

import { ApiError, NetworkError } from "./errors.js";

export { ApiError, NetworkError };

export type Params = Record<string, string | number | boolean | object | null | undefined>;

let csrfToken: string | null = null;
const token = () =>
  (csrfToken ??= document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "");

/** The session has ended (logged out here or elsewhere, expired): the page goes to the login form, once. */
let sessionEnded = false;
export function endSession(): void {
  if (sessionEnded) return;
  sessionEnded = true;
  location.assign("/");
}

export function encodeParams(params: Params): URLSearchParams {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    body.set(key, typeof value === "string" ? value : JSON.stringify(value));
  }
  return body;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** One API call; resolves to the success body, rejects with ApiError or NetworkError. */
export async function api<T = Record<string, unknown>>(
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  params: Params = {},
  options: RequestOptions = {},
): Promise<T> {
  const encoded = encodeParams(params);
  const query = method === "GET" && encoded.size > 0 ? `?${encoded}` : "";
  return send<T>(method, `/json${path}${query}`, method === "GET" ? undefined : encoded, options);
}

/** A multipart upload (files), with progress: fetch cannot report upload progress, XMLHttpRequest can. */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/json${path}`);
    xhr.setRequestHeader("X-CSRFToken", token());
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new NetworkError("Upload failed: no answer from the server"));
    xhr.onload = () => {
      try {
        resolve(answer<T>(xhr.status, JSON.parse(xhr.responseText) as Record<string, unknown>));
      } catch (err) {
        reject(err instanceof ApiError ? err : new NetworkError("Upload failed"));
      }
    };
    xhr.send(form);
  });
}

async function send<T>(
  method: string,
  url: string,
  body: URLSearchParams | undefined,
  options: RequestOptions,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      body,
      headers: { "X-CSRFToken": token(), Accept: "application/json" },
      credentials: "same-origin",
      signal: options.signal,
    });
  } catch (err) {
    throw new NetworkError((err as Error).message);
  }
  let json: Record<string, unknown>;
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    throw new NetworkError(`The server answered ${res.status} without JSON`);
  }
  return answer<T>(res.status, json);
}

function answer<T>(status: number, json: Record<string, unknown>): T {
  if (json.result === "success") return json as T;
  const code = typeof json.code === "string" ? json.code : "BAD_REQUEST";
  if (status === 401) endSession();
  throw new ApiError(typeof json.msg === "string" ? json.msg : "Error", code, status, json);
}
