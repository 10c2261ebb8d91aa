import type { Middleware } from "koa";
import type { App } from "../app.js";
import { realmUrl } from "../config.js";
import { DEFAULT_CHANNEL } from "../actions/init.js";
import { escapeHtml } from "../lib/html.js";
import { DEFAULT_REALM_ICON_PATH, ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from "../presenters/realm.js";

/**
 * The page at /help/clients: how to connect each client other than the web client (the
 * login page links it). Plain HTML built from a template string: no script, no engine.
 */
export const CLIENTS_PAGE_PATH = "/help/clients";

export interface HomePageInfo {
  realmName: string;
  realmDescription: string;
  url: string;
}

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; color: #222; background: #f7f7f9; margin: 0; }
main { max-width: 46rem; margin: 0 auto; padding: 2rem 1.25rem 3rem; }
header { display: flex; align-items: center; gap: 1rem; }
h1 { margin: 0; font-size: 1.9rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
pre, code { font: 0.9rem/1.4 ui-monospace, monospace; background: #ececf1; border-radius: 4px; }
code { padding: 0.1rem 0.3rem; }
pre { padding: 0.75rem 1rem; overflow-x: auto; }
.url { font-size: 1.1rem; }
footer { margin-top: 3rem; color: #666; font-size: 0.85rem; }
`;

/** The page's HTML; every value from the organization or settings is escaped. */
export function renderHomePage(info: HomePageInfo): string {
  const name = escapeHtml(info.realmName);
  const url = escapeHtml(info.url);
  const general = escapeHtml(DEFAULT_CHANNEL.name);
  const description =
    info.realmDescription.trim() === ""
      ? ""
      : `<p class="description">${escapeHtml(info.realmDescription)}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name} · chatd</title>
<link rel="icon" href="${DEFAULT_REALM_ICON_PATH}">
<style>${STYLE}</style>
</head>
<body>
<main>
<header><img src="${DEFAULT_REALM_ICON_PATH}" width="64" height="64" alt=""><h1>${name}</h1></header>
${description}
<p>This is the chat server of <strong>${name}</strong>. It runs <strong>chatd</strong>, a self-hosted
team chat server that speaks the Zulip API. Open <a href="/">its web client</a> in a browser, or connect
one of the Zulip clients below, using this server's URL and the email and password your administrator
gave you.</p>
<p class="url">Server URL: <code>${url}</code></p>

<h2>Zulip mobile app</h2>
<p>Install the Zulip app for Android or iOS, choose to add an account, enter the server URL
<code>${url}</code>, then log in with your email and password.</p>

<h2>zulip-terminal</h2>
<pre>pip install zulip-term
zulip-term</pre>
<p>On its first run it asks for the server URL (<code>${url}</code>), your email and your password,
then saves an API key in <code>~/zuliprc</code>.</p>

<h2>Python bindings, zulip-send and bots</h2>
<p>They authenticate with an API key. Get one with your email and password:</p>
<pre>curl -sS ${url}/api/v1/fetch_api_key \\
  --data-urlencode username=you@example.com --data-urlencode password=YOUR-PASSWORD</pre>
<p>(or ask your administrator, who can run <code>npx chatd api-key --email you@example.com</code>).
Then save a <code>zuliprc</code> file:</p>
<pre>[api]
email=you@example.com
key=YOUR-API-KEY
site=${url}</pre>
<pre>pip install zulip
zulip-send --config-file zuliprc --stream ${general} --subject hello --message "Hi!"</pre>
<p>Bots: <code>pip install zulip_bots</code>, then <code>zulip-run-bot &lt;bot&gt; --config-file zuliprc</code>.
zulip-js and scripts written against Zulip's REST API work the same way.</p>

<h2>Changing your password</h2>
<pre>curl -sS -X PATCH -u you@example.com:YOUR-API-KEY ${url}/api/v1/settings \\
  --data-urlencode old_password=OLD --data-urlencode new_password=NEW</pre>

<footer>chatd · Zulip API ${escapeHtml(ZULIP_VERSION)}, feature level ${ZULIP_FEATURE_LEVEL}</footer>
</main>
</body>
</html>
`;
}

/** The page may show the organization's name only: no script, no outside resources. */
const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-cache",
};

export function clientsPage(app: App): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== CLIENTS_PAGE_PATH || (ctx.method !== "GET" && ctx.method !== "HEAD")) {
      await next();
      return;
    }
    const realm = await app.realms.primaryRealm(app.knex);
    ctx.set(SECURITY_HEADERS);
    ctx.type = "text/html; charset=utf-8";
    ctx.body = renderHomePage({
      realmName: realm?.realm.name ?? "chatd",
      realmDescription: realm?.realm.description ?? "",
      url: realmUrl(app.config),
    });
  };
}
