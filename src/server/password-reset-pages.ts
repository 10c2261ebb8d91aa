import type { Context } from "koa";
import type { App } from "../app.js";
import {
  checkRequestPasswordReset,
  checkResetPassword,
  isResetError,
  passwordResetLinkState,
  PASSWORD_RESET_CONFIRM_PATH,
  ResetLinkInvalid,
} from "../actions/password-reset.js";
import { JsonableError } from "../errors.js";
import { validateSameOrigin, publicOrigin } from "../http/auth.js";
import { requestParams } from "../http/body.js";
import type { ConfirmationState } from "../lib/confirmation-tokens.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../lib/passwords.js";
import { escapeHtml } from "../lib/html.js";
import { DEFAULT_REALM_ICON_PATH } from "../presenters/realm.js";
import type { WebManifest } from "./web-assets.js";
import { head, PAGE_HEADERS, PAGE_POLICY, type RealmInfo } from "./web-pages.js";

/**
 * The password reset pages (Zulip's /accounts/password/reset/): a form that asks for an
 * address and always answers the same, and the page a mailed link opens, which sets a new
 * password. Server-rendered as the login page, protected as it is (same-origin POSTs).
 */

export const PASSWORD_RESET_PATH = "/accounts/password/reset/";

/** Where the person lands after a reset: the login page, with a notice. */
export const RESET_DONE_LOCATION = "/login/?password_reset=done";

export const PASSWORD_RESET_NOTICE = "Your password has been reset. Log in with your new password.";

/** What the request form answers for any address (never whether an account exists). */
export const RESET_SENT_MESSAGE =
  "If an account exists for that address, we sent a link to reset its password. It works once, for one hour. " +
  "Check your email (and your spam folder).";

const LINK_MESSAGES: Record<Exclude<ConfirmationState, "valid">, string> = {
  used: "This password reset link has already been used.",
  expired: "This password reset link has expired.",
  revoked: "This password reset link was replaced by a newer one.",
  unknown: "This password reset link is not valid.",
};

const RATE_LIMITED = "You're making too many attempts. Try again later.";

export interface PageOptions {
  manifest: WebManifest | null;
  realm: RealmInfo;
}

/** Handles the reset pages' routes; false for any other request. */
export async function passwordResetPages(app: App, ctx: Context, options: PageOptions): Promise<boolean> {
  const method = ctx.method === "HEAD" ? "GET" : ctx.method;
  const path = ctx.path.endsWith("/") ? ctx.path : `${ctx.path}/`;
  if (path === PASSWORD_RESET_PATH && method === "GET") {
    cardPage(ctx, options, requestForm({}));
  } else if (path === PASSWORD_RESET_PATH && method === "POST") {
    await requestReset(app, ctx, options);
  } else if (path === PASSWORD_RESET_CONFIRM_PATH && method === "GET") {
    const token = typeof ctx.query.token === "string" ? ctx.query.token : "";
    const { state } = await passwordResetLinkState(app, token);
    if (state === "valid") cardPage(ctx, options, setForm(token, {}));
    else linkInvalid(ctx, options, state);
  } else if (path === PASSWORD_RESET_CONFIRM_PATH && method === "POST") {
    await setPassword(app, ctx, options);
  } else {
    return false;
  }
  return true;
}

async function requestReset(app: App, ctx: Context, options: PageOptions): Promise<void> {
  const email = requestParams(ctx).get("email") ?? "";
  try {
    validateSameOrigin({ method: ctx.method, header: (name) => ctx.get(name) }, publicOrigin(app));
    if (email.trim() === "")
      return cardPage(ctx, options, requestForm({ error: "Enter your email address." }), 400);
    const realm = await app.realms.primaryRealm(app.knex);
    if (realm) await checkRequestPasswordReset(app, realm, email);
    cardPage(ctx, options, sentPage());
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    ctx.set(err.headers);
    const status = err.code === "CSRF_FAILED" ? 403 : err.status === 429 ? 429 : 400;
    cardPage(
      ctx,
      options,
      requestForm({ email, error: status === 429 ? RATE_LIMITED : err.message }),
      status,
    );
  }
}

async function setPassword(app: App, ctx: Context, options: PageOptions): Promise<void> {
  const params = requestParams(ctx);
  const token = params.get("token") ?? "";
  try {
    validateSameOrigin({ method: ctx.method, header: (name) => ctx.get(name) }, publicOrigin(app));
    await checkResetPassword(app, token, params.get("new_password") ?? "");
    ctx.status = 303;
    ctx.set("Cache-Control", "no-store");
    ctx.redirect(RESET_DONE_LOCATION);
    ctx.status = 303;
  } catch (err) {
    if (!isResetError(err)) throw err;
    if (err instanceof ResetLinkInvalid) return linkInvalid(ctx, options, err.state);
    ctx.set(err.headers);
    const status = err.code === "CSRF_FAILED" ? 403 : 400;
    const error =
      err.message === "The password is too weak."
        ? `The password is too weak: use at least ${PASSWORD_MIN_LENGTH} characters.`
        : err.message;
    cardPage(ctx, options, setForm(token, { error }), status);
  }
}

function linkInvalid(ctx: Context, options: PageOptions, state: ConfirmationState): void {
  const message = state === "valid" ? LINK_MESSAGES.unknown : LINK_MESSAGES[state];
  const body = `<h1>Reset your password</h1>
<p role="alert">${escapeHtml(message)}</p>
<p class="card-links"><a href="${PASSWORD_RESET_PATH}">Ask for a new link</a> · <a href="/login/">Log in</a></p>`;
  cardPage(ctx, options, { title: "Reset your password", body }, state === "unknown" ? 404 : 410);
}

export interface PageBody {
  title: string;
  body: string;
}

const errorLine = (error: string | undefined) =>
  error ? `<p class="form-error" role="alert">${escapeHtml(error)}</p>` : "";

function requestForm(form: { email?: string; error?: string }): PageBody {
  return {
    title: "Reset your password",
    body: `<h1>Reset your password</h1>
<p>Enter your email address: if it has an account here, we will send it a link to set a new password.</p>
<form method="post" action="${PASSWORD_RESET_PATH}" class="form">
${errorLine(form.error)}
<label for="reset-email">Email</label>
<input id="reset-email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(form.email ?? "")}">
<button type="submit">Reset password</button>
</form>
<p class="card-links"><a href="/login/">Back to log in</a></p>`,
  };
}

function sentPage(): PageBody {
  return {
    title: "Check your email",
    body: `<h1>Check your email</h1>
<p role="status">${escapeHtml(RESET_SENT_MESSAGE)}</p>
<p class="card-links"><a href="/login/">Back to log in</a></p>`,
  };
}

function setForm(token: string, form: { error?: string }): PageBody {
  return {
    title: "Set a new password",
    body: `<h1>Set a new password</h1>
<form method="post" action="${PASSWORD_RESET_CONFIRM_PATH}" class="form">
${errorLine(form.error)}
<input type="hidden" name="token" value="${escapeHtml(token)}">
<label for="reset-new-password">New password</label>
<input id="reset-new-password" name="new_password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" autofocus aria-describedby="reset-password-hint">
<p id="reset-password-hint" class="field-hint">At least ${PASSWORD_MIN_LENGTH} characters.</p>
<button type="submit">Set password</button>
</form>
<p class="card-links"><a href="/login/">Back to log in</a></p>`,
  };
}

export function cardPage(ctx: Context, options: PageOptions, content: PageBody, status = 200): void {
  const { manifest, realm } = options;
  const assets = manifest ? `<link rel="stylesheet" href="${escapeHtml(manifest.pages.css)}">` : "";
  ctx.status = status;
  // Referrer-Policy same-origin: no other site learns a link's token from a Referer (and
  // the forms' POSTs keep their Origin, which no-referrer would make "null").
  ctx.set(PAGE_HEADERS(PAGE_POLICY));
  ctx.type = "text/html; charset=utf-8";
  ctx.body = `${head(`${content.title} · ${realm.name}`, null, assets)}
<body class="page">
<main class="card">
<header class="card-header">
<img src="${DEFAULT_REALM_ICON_PATH}" width="56" height="56" alt="">
</header>
${content.body}
</main>
</body>
</html>
`;
}
