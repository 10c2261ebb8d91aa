import type { Context, Middleware } from "koa";
import type { App } from "../app.js";
import type { JoinLink, JoinLookup, SignUpResult } from "../actions/signup.js";
import { JsonableError } from "../errors.js";
import { publicOrigin, validateSameOrigin } from "../http/auth.js";
import { requestParams } from "../http/body.js";
import { emailEnabled } from "../lib/email-settings.js";
import { escapeHtml } from "../lib/html.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../lib/passwords.js";
import { sessionCookie } from "../lib/sessions.js";
import { openSignUpAllowed } from "../permissions/open-signup.js";
import { DEFAULT_REALM_ICON_PATH } from "../presenters/realm.js";
import { cookieOptions, realmInfo, redirect } from "./web-app.js";
import { loadWebManifest, type WebManifest } from "./web-assets.js";
import { head, PAGE_HEADERS, PAGE_POLICY } from "./web-pages.js";

/**
 * The sign-up pages invitation links open (`/join/<token>/`, Zulip's URL): a form for the
 * new account's name and password (and address, for a reusable link); a link that was
 * used, revoked or has expired says so and shows no form. `/register/` (Zulip's URL) is
 * open sign-up where the realm does not require invitations: the address first when email
 * is on (a confirmation link is mailed), the whole form at once when it is off; where
 * invitations are required it says so and shows no form. Server-rendered like the login
 * page, and, like it, POSTs are checked to come from this site.
 */
// Loaded on the first sign-up: it brings user creation and message sending, which an idle
// server does not need (test/cli/lazy-loading.test.ts).
const signupActions = () => import("../actions/signup.js");

export function signupPages(app: App, manifest: WebManifest | null = loadWebManifest()): Middleware {
  return async (ctx, next) => {
    if (ctx.path === REGISTER_PATH || ctx.path === "/register") {
      if (ctx.method === "GET" || ctx.method === "HEAD") return registerPage(app, ctx, manifest);
      if (ctx.method === "POST") return register(app, ctx, manifest);
    }
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

/** Open sign-up's page (Zulip's accounts_home). */
export const REGISTER_PATH = "/register/";

/** What open sign-up says where invitations are required (no form). */
const INVITATION_REQUIRED =
  "You need an invitation to join this organization. Ask one of its administrators to invite you.";

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
  // A mailed open sign-up link is no use once the realm requires invitations.
  if (
    found.link.invitation === null &&
    !openSignUpAllowed(await app.realms.get(app.knex, found.link.realmId))
  ) {
    return render(ctx, 403, await page(app, manifest, { notice: INVITATION_REQUIRED, title: "Sign up" }));
  }
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

async function registerPage(app: App, ctx: Context, manifest: WebManifest | null): Promise<void> {
  const realm = await app.realms.primaryRealm(app.knex);
  if (!realm || !openSignUpAllowed(realm)) {
    return render(ctx, 200, await page(app, manifest, { notice: INVITATION_REQUIRED, title: "Sign up" }));
  }
  render(ctx, 200, await page(app, manifest, { form: { email: "", fullName: "" }, open: true }));
}

async function register(app: App, ctx: Context, manifest: WebManifest | null): Promise<void> {
  const form = signUpForm(ctx);
  try {
    validateSameOrigin({ method: ctx.method, header: (name) => ctx.get(name) }, publicOrigin(app));
    const realm = await app.realms.primaryRealm(app.knex);
    if (!realm) throw new (await signupActions()).InvitationRequired();
    const result = await (await signupActions()).checkOpenSignUp(app, realm.id, form);
    await answer(app, ctx, manifest, result);
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    if (err instanceof (await signupActions()).InvitationRequired) {
      return render(ctx, 403, await page(app, manifest, { notice: INVITATION_REQUIRED, title: "Sign up" }));
    }
    const status = err.code === "CSRF_FAILED" ? 403 : err.status === 429 ? 429 : 200;
    render(ctx, status, await page(app, manifest, { open: true, form, error: err.message }));
  }
}

const signUpForm = (ctx: Context) => {
  const params = requestParams(ctx);
  return {
    email: params.get("email") ?? "",
    fullName: params.get("full_name") ?? "",
    password: params.get("password") ?? "",
  };
};

/** A sign-up's outcome: a session and the app, or the page saying where the link went. */
async function answer(
  app: App,
  ctx: Context,
  manifest: WebManifest | null,
  result: SignUpResult,
): Promise<void> {
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
}

async function join(app: App, ctx: Context, manifest: WebManifest | null, token: string): Promise<void> {
  const form = signUpForm(ctx);
  const found = await (await signupActions()).findJoinLink(app, token);
  if (found.state !== "valid") return gonePage(app, ctx, manifest, found.state);
  try {
    validateSameOrigin({ method: ctx.method, header: (name) => ctx.get(name) }, publicOrigin(app));
    await answer(app, ctx, manifest, await (await signupActions()).checkSignUp(app, found.link, form));
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    if (err instanceof (await signupActions()).InvitationRequired) {
      return render(ctx, 403, await page(app, manifest, { notice: INVITATION_REQUIRED, title: "Sign up" }));
    }
    const status = err.code === "CSRF_FAILED" ? 403 : err.status === 429 ? 429 : 200;
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
  /** The link to sign up with; absent (and not `open`), the page only says `notice`. */
  link?: JoinLink;
  token?: string;
  /** Open sign-up's form (/register/), without a link. */
  open?: boolean;
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
${formFor(app, content)}
</main>
</body>
</html>
`;
}

function formFor(app: App, content: PageContent): string {
  if (content.open) return signupForm(app, REGISTER_PATH, null, true, content);
  if (!content.link || !content.token) return "";
  const { link, token } = content;
  return signupForm(
    app,
    `/join/${token}/`,
    link.email,
    link.confirmation.kind === "multiuse_invitation",
    content,
  );
}

/**
 * The form: Email (fixed by an email invitation or a confirmed address), Full name,
 * Password, and Sign up. Where the address is still to be confirmed (a reusable link or
 * open sign-up) and email is on, the form asks for the address alone.
 */
function signupForm(
  app: App,
  action: string,
  fixed: string | null,
  unconfirmed: boolean,
  content: PageContent,
): string {
  const error = content.error ? `<p class="form-error" role="alert">${escapeHtml(content.error)}</p>` : "";
  const fixedEmail = fixed !== null;
  const email = fixed ?? content.form?.email ?? "";
  const askEmailOnly = !fixedEmail && unconfirmed && emailEnabled(app.config);
  const emailField = `<label for="signup-email">Email</label>
<input id="signup-email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"${fixedEmail ? " readonly" : " autofocus"}>`;
  const rest = askEmailOnly
    ? ""
    : `<label for="signup-full-name">Full name</label>
<input id="signup-full-name" name="full_name" type="text" autocomplete="name" required maxlength="60" value="${escapeHtml(content.form?.fullName ?? "")}"${fixedEmail ? " autofocus" : ""}>
<label for="signup-password">Password</label>
<input id="signup-password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" aria-describedby="signup-password-hint">
<p id="signup-password-hint" class="field-hint">At least ${PASSWORD_MIN_LENGTH} characters.</p>`;
  return `<form method="post" action="${escapeHtml(action)}" class="form">
${error}
${emailField}
${rest}
<button type="submit">Sign up</button>
</form>`;
}
