import { expect } from "chai";
import { wireValue, type ApiResponse, type Params } from "./client.js";
import type { TestServer } from "./server.js";

/**
 * The web client's side of the HTTP conversation, as a browser holds it: the session
 * cookie from the login form, the CSRF token from the app's page, and /json/ requests.
 */

/** A running server: in this process (startTestServer) or another (startServerProcess). */
export type Site = Pick<TestServer, "url">;

export interface WebSession {
  /** The session cookie's value (the token): what the browser keeps and the page never sees. */
  readonly token: string;
  /** The Cookie header a browser sends with it. */
  readonly cookie: string;
}

export interface LoggedIn extends WebSession {
  /** The CSRF token the app's page carries in its meta tag. */
  readonly csrf: string;
}

/** A request to the server's own URL (never following redirects: tests look at them). */
export function browse(server: Site, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(new URL(path, server.url), { redirect: "manual", ...init });
}

/** POST of an HTML form (application/x-www-form-urlencoded), as the login page sends it. */
export function postForm(
  server: Site,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return browse(server, path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The `sessionid` value a response sets, or undefined. */
export function setSessionCookie(res: Response): string | undefined {
  return res.headers.getSetCookie().find((cookie) => cookie.startsWith("sessionid="));
}

/** Submits the login form; on success the 303 and the session it started. */
export async function submitLogin(
  server: Site,
  email: string,
  password: string,
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<{ res: Response; session: WebSession | null }> {
  const res = await postForm(server, "/accounts/login/", { username: email, password, ...extra }, headers);
  const cookie = setSessionCookie(res);
  const token = cookie ? /^sessionid=([^;]*)/.exec(cookie)![1]! : "";
  return { res, session: token === "" ? null : { token, cookie: `sessionid=${token}` } };
}

/** The CSRF token of the app's page (GET / with the session), as the client reads it. */
export async function csrfOfPage(server: Site, session: WebSession): Promise<string> {
  const res = await browse(server, "/", { headers: { cookie: session.cookie } });
  const html = await res.text();
  const match = /<meta name="csrf-token" content="([^"]+)">/.exec(html);
  expect(match, "the app's page carries a CSRF token").not.to.equal(null);
  return match![1]!;
}

/** Logs in through the form (which must succeed) and loads the app's page for its CSRF token. */
export async function logIn(server: Site, user: { email: string; password: string }): Promise<LoggedIn> {
  const { res, session } = await submitLogin(server, user.email, user.password);
  expect(res.status, await res.text()).to.equal(303);
  expect(session).not.to.equal(null);
  return { ...session!, csrf: await csrfOfPage(server, session!) };
}

export interface JsonOptions {
  /** The X-CSRFToken header: the session's by default, null for none. */
  csrf?: string | null;
  headers?: Record<string, string>;
}

/** A /json/ request as the web client sends it: the cookie, and its CSRF token on a change. */
export async function json(
  server: Site,
  session: WebSession | LoggedIn | null,
  method: string,
  path: string,
  params: Params = {},
  options: JsonOptions = {},
): Promise<ApiResponse> {
  const url = new URL(`/json${path}`, server.url);
  const headers: Record<string, string> = {};
  if (session) headers.cookie = session.cookie;
  const csrf = options.csrf === undefined && session && "csrf" in session ? session.csrf : options.csrf;
  if (typeof csrf === "string") headers["x-csrftoken"] = csrf;
  Object.assign(headers, options.headers);
  const fields = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]): [string, string] => [key, wireValue(value)]);
  let body: string | undefined;
  if (method === "GET") for (const [key, value] of fields) url.searchParams.append(key, value);
  else {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(fields).toString();
  }
  const res = await fetch(url, { method, headers, body, redirect: "manual" });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { nonJson: text };
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Whether an HTML answer is the login page (the form posting to /accounts/login/). */
export const isLoginPage = (html: string) =>
  html.includes('<form method="post" action="/accounts/login/"') && !html.includes('name="csrf-token"');

/** Whether an HTML answer is the app's page. */
export const isAppShell = (html: string) =>
  html.includes('<meta name="csrf-token"') && html.includes('id="app"');

/** Waits (briefly, on the real clock) until `condition` holds: for work a response does not wait for. */
export async function eventually(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 10) {
    if (waited > 5000) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
