import type { Context, Middleware } from "koa";
import type { App } from "../app.js";
import type { JoinLink, JoinLookup } from "../actions/signup.js";
import { JsonableError } from "../errors.js";
import { publicOrigin, validateSameOrigin } from "../http/auth.js";
import { requestParams } from "../http/body.js";
import { emailEnabled } from "../lib/email-settings.js";
import { escapeHtml } from "../lib/html.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../lib/passwords.js";
import { sessionCookie } from "../lib/sessions.js";
import { DEFAULT_REALM_ICON_PATH } from "../presenters/realm.js";
import { cookieOptions, realmInfo, redirect } from "./web-app.js";
import { loadWebManifest, type WebManifest } from "./web-assets.js";
import { head, PAGE_HEADERS, PAGE_POLICY } from "./web-pages.js";

/**
 * The sign-up pages invitation links open (`/join/<token>/`, Zulip's URL): a form for the
 * new account's name and password (and address, for a reusable link); a link that was
 * used, revoked or has expired says so and shows no form. Server-rendered like the login
 * page, and, like it, POSTs are checked to come from this site.
 */
// Loaded on the first sign-up: it brings user creation and message sending, which an idle
// server does not need (test/cli/lazy-loading.test.ts).
const signupActions = () => import("../actions/signup.js");

export function signupPages(app: App, manifest: WebManifest | null = loadWebManifest()): Middleware {
  return async (ctx, next) => {
    const match = /^\/join\/([^/]+)\/?$/.exec(ctx.path);
    if (!match) {
      await next();
      return;
    }
    const token = match[1]!;
    if (ctx.method === "GET" || ctx.method === "HEAD") return joinPage(app, ctx, manifest, token);
    if (ctx.method === "POST") return join(app, ctx, manifest, token);
    await next();
  };
}

/** What a link that cannot be followed says (no form). */
const GONE: Record<Exclude<JoinLookup["state"], "valid">, string> = {
  used: "This invitation link has already been used. If you have an account, log in instead.",
  expired: "This invitation link has expired. Ask the person who invited you for a new one.",
  revoked: "This invitation link has been revoked. Ask the person who invited you for a new one.",
  unknown: "This invitation link is not valid. Check that you copied the whole link.",
};

async function joinPage(app: App, ctx: Context, manifest: WebManifest | null, token: string): Promise<void> {
  const found = await (await signupActions()).findJoinLink(app, token);
  if (found.state !== "valid") return gonePage(app, ctx, manifest, found.state);
  render(ctx, 200, await page(app, manifest, { link: found.link, token }));
}

async function gonePage(
  app: App,
  ctx: Context,
  manifest: WebManifest | null,
  state: Exclude<JoinLookup["state"], "valid">,
): Promise<void> {
  render(ctx, 404, await page(app, manifest, { notice: GONE[state] }));
}

async function join(app: App, ctx: Context, manifest: WebManifest | null, token: string): Promise<void> {
  const params = requestParams(ctx);
  const form = {
    email: params.get("email") ?? "",
    fullName: params.get("full_name") ?? "",
    password: params.get("password") ?? "",
  };
  const found = await (await signupActions()).findJoinLink(app, token);
  if (found.state !== "valid") return gonePage(app, ctx, manifest, found.state);
  try {
    validateSameOrigin({ method: ctx.method, header: (name) => ctx.get(name) }, publicOrigin(app));
    const result = await (await signupActions()).checkSignUp(app, found.link, form);
    if (result.kind === "gone") return gonePage(app, ctx, manifest, "used");
    if (result.kind === "confirmation_sent") {
      const notice =
        `We sent an email to ${result.email}. Click the link in it to finish creating your account; ` +
        "it expires in one day.";
      return render(ctx, 200, await page(app, manifest, { notice, title: "Check your email" }));
    }
    ctx.append(
      "Set-Cookie",
      sessionCookie(result.sessionToken, cookieOptions(app, app.config.session_max_age_secs)),
    );
    redirect(ctx, "/");
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    const status = err.code === "CSRF_FAILED" ? 403 : 200;
    render(ctx, status, await page(app, manifest, { link: found.link, token, form, error: err.message }));
  }
}

function render(ctx: Context, status: number, html: string): void {
  ctx.status = status;
  ctx.set(PAGE_HEADERS(PAGE_POLICY));
  ctx.type = "text/html; charset=utf-8";
  ctx.body = html;
}

interface PageContent {
  /** The link to sign up with; absent, the page only says `notice`. */
  link?: JoinLink;
  token?: string;
  form?: { email: string; fullName: string };
  error?: string;
  notice?: string;
  title?: string;
}

async function page(app: App, manifest: WebManifest | null, content: PageContent): Promise<string> {
  const realm = await realmInfo(app);
  const assets = manifest ? `<link rel="stylesheet" href="${escapeHtml(manifest.pages.css)}">` : "";
  const title = content.title ?? `Join ${realm.name}`;
  return `${head(`${title} · ${realm.name}`, null, assets)}
<body class="page">
<main class="card">
<header class="card-header">
<img src="${DEFAULT_REALM_ICON_PATH}" width="56" height="56" alt="">
<h1>${escapeHtml(title)}</h1>
</header>
${content.notice ? `<p role="status">${escapeHtml(content.notice)}</p>\n<p class="card-links"><a href="/login/">Go to the login page</a></p>` : ""}
${content.link && content.token ? signupForm(app, content.link, content.token, content) : ""}
</main>
</body>
</html>
`;
}

/** The form: Email (fixed by an email invitation), Full name, Password, and Sign up. */
function signupForm(app: App, link: JoinLink, token: string, content: PageContent): string {
  const error = content.error ? `<p class="form-error" role="alert">${escapeHtml(content.error)}</p>` : "";
  const fixedEmail = link.email !== null;
  const email = link.email ?? content.form?.email ?? "";
  // With email on, a reusable link first confirms the address: the rest comes after.
  const askEmailOnly =
    !fixedEmail && link.confirmation.kind === "multiuse_invitation" && emailEnabled(app.config);
  const emailField = `<label for="signup-email">Email</label>
<input id="signup-email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"${fixedEmail ? " readonly" : " autofocus"}>`;
  const rest = askEmailOnly
    ? ""
    : `<label for="signup-full-name">Full name</label>
<input id="signup-full-name" name="full_name" type="text" autocomplete="name" required maxlength="60" value="${escapeHtml(content.form?.fullName ?? "")}"${fixedEmail ? " autofocus" : ""}>
<label for="signup-password">Password</label>
<input id="signup-password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" aria-describedby="signup-password-hint">
<p id="signup-password-hint" class="field-hint">At least ${PASSWORD_MIN_LENGTH} characters.</p>`;
  return `<form method="post" action="/join/${escapeHtml(token)}/" class="form">
${error}
${emailField}
${rest}
<button type="submit">Sign up</button>
</form>`;
}
