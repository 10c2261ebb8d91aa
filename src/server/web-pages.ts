import { escapeHtml } from "../lib/html.js";
import { DEFAULT_REALM_ICON_PATH } from "../presenters/realm.js";
import type { WebManifest } from "./web-assets.js";

/**
 * The HTML of the web client's pages, built from template strings: the app's shell (its
 * script draws everything else) and the server-rendered login page. Every value from the
 * organization, a user or a setting is escaped; no page has an inline script or style.
 */

export interface RealmInfo {
  readonly name: string;
  readonly description: string;
  /** The URL other clients are given (external_url). */
  readonly url: string;
}

/** Strict: scripts only from this server, nothing framed, no plugins, no base tag. */
const BASE_POLICY = "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

export const PAGE_POLICY = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; ${BASE_POLICY}`;

/**
 * The app talks to this server only; images are this server's (uploads, avatars, emoji),
 * pasted ones before upload (blob:, data:), and Gravatar's avatars (the default avatar).
 */
export const APP_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; font-src 'self'; " +
  "img-src 'self' data: blob: https://secure.gravatar.com; media-src 'self' blob:; " +
  BASE_POLICY;

export const PAGE_HEADERS = (policy: string): Record<string, string> => ({
  "Content-Security-Policy": policy,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
  "Cache-Control": "no-store",
});

export type Theme = "light" | "dark" | null;

export function head(title: string, theme: Theme, extra: string): string {
  const themeAttr = theme ? ` data-theme="${theme}"` : "";
  return `<!doctype html>
<html lang="en"${themeAttr}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${DEFAULT_REALM_ICON_PATH}">
${extra}
</head>`;
}

export interface AppShell {
  realm: RealmInfo;
  csrfToken: string;
  theme: Theme;
  /** Whether email goes out (SMTP configured): with it off, the app shows links to hand over. */
  emailEnabled: boolean;
}

/** The app's page: its stylesheet and module script, and the session's CSRF token for /json/ requests. */
export function renderAppShell(manifest: WebManifest, shell: AppShell): string {
  const preload = manifest.app.preload
    .map((file) => `<link rel="modulepreload" href="${escapeHtml(file)}">`)
    .join("\n");
  return `${head(
    shell.realm.name,
    shell.theme,
    `<meta name="csrf-token" content="${escapeHtml(shell.csrfToken)}">
<meta name="chatd-email" content="${shell.emailEnabled ? "on" : "off"}">
<link rel="stylesheet" href="${escapeHtml(manifest.app.css)}">
${preload}
<script type="module" src="${escapeHtml(manifest.app.js)}"></script>`,
  )}
<body>
<div id="app"><div class="boot" role="status">Loading ${escapeHtml(shell.realm.name)}…</div></div>
</body>
</html>
`;
}

export interface LoginPage {
  realm: RealmInfo;
  /** The address typed before a failed attempt, shown again. */
  email?: string;
  error?: string;
  /** What just happened (a password was reset). */
  notice?: string;
  /** Anyone may sign up (the realm does not require invitations): a Sign up link. */
  signUp?: boolean;
}

/** The login form; it works without script (the page's script only carries a deep link through). */
export function renderLoginPage(manifest: WebManifest | null, page: LoginPage): string {
  const { realm } = page;
  const assets = manifest
    ? `<link rel="stylesheet" href="${escapeHtml(manifest.pages.css)}">
<script type="module" src="${escapeHtml(manifest.pages.js)}"></script>`
    : "";
  const error = page.error ? `<p class="form-error" role="alert">${escapeHtml(page.error)}</p>` : "";
  const notice = page.notice ? `<p class="form-ok" role="status">${escapeHtml(page.notice)}</p>` : "";
  const description =
    realm.description.trim() === ""
      ? ""
      : `<p class="realm-description">${escapeHtml(realm.description)}</p>`;
  return `${head(`Log in · ${realm.name}`, null, assets)}
<body class="page">
<main class="card">
<header class="card-header">
<img src="${DEFAULT_REALM_ICON_PATH}" width="56" height="56" alt="">
<h1>Log in to ${escapeHtml(realm.name)}</h1>
${description}
</header>
${manifest ? "" : `<p class="form-error" role="alert">This server's web client is not built: run <code>npm run build</code>.</p>`}
<form method="post" action="/accounts/login/" class="form">
${notice}
${error}
<input type="hidden" name="next" value="">
<label for="login-email">Email</label>
<input id="login-email" name="username" type="email" autocomplete="username" required autofocus value="${escapeHtml(page.email ?? "")}">
<label for="login-password">Password</label>
<input id="login-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<p class="card-links"><a href="/accounts/password/reset/">Forgot your password?</a>${page.signUp ? ` · <a href="/register/">Sign up</a>` : ""}</p>
</main>
<footer class="page-footer">
<p>Using the Zulip mobile app, zulip-terminal or a bot? Server URL: <code>${escapeHtml(realm.url)}</code> · <a href="/help/clients">How to connect them</a></p>
</footer>
</body>
</html>
`;
}
