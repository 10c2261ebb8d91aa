import type { Context, Middleware } from "koa";
import type { App } from "../app.js";
import { checkLogin, checkLogout } from "../actions/sessions.js";
import { realmUrl } from "../config.js";
import { bool } from "../db/rows.js";
import { JsonableError } from "../errors.js";
import { openSignUpAllowed } from "../permissions/open-signup.js";
import { validateCsrf, validateSameOrigin, liveSession, publicOrigin } from "../http/auth.js";
import { requestParams } from "../http/body.js";
import type { SessionRecord } from "../cache/session-cache.js";
import {
  cookieValue,
  csrfTokenFor,
  hasSessionTokenFormat,
  sessionCookie,
  SESSION_COOKIE,
} from "../lib/sessions.js";
import {
  renderAppShell,
  renderLoginPage,
  APP_POLICY,
  PAGE_HEADERS,
  PAGE_POLICY,
  type RealmInfo,
  type Theme,
} from "./web-pages.js";
import { loadWebManifest, type WebManifest } from "./web-assets.js";
import { PASSWORD_RESET_NOTICE, passwordResetPages } from "./password-reset-pages.js";
import { emailChangePages } from "./email-change-pages.js";
import { emailEnabled } from "../lib/email-settings.js";

/**
 * The web client's pages, as Zulip's web app serves them: `/` is the app for a browser
 * with a live session and the login page for any other; POST /accounts/login/ starts a
 * session (an HttpOnly cookie) and POST /accounts/logout/ ends it. The app itself then
 * calls the API under /json/ with that cookie and the page's CSRF token.
 */
export function webApp(app: App, manifest: WebManifest | null = loadWebManifest()): Middleware {
  return async (ctx, next) => {
    const route = `${ctx.method === "HEAD" ? "GET" : ctx.method} ${ctx.path}`;
    switch (route) {
      case "GET /":
        return home(app, ctx, manifest);
      case "GET /login":
      case "GET /login/":
        if (await currentSession(app, ctx)) return redirect(ctx, "/");
        return loginPage(app, ctx, manifest, {
          notice: ctx.query.password_reset === "done" ? PASSWORD_RESET_NOTICE : undefined,
        });
      case "POST /accounts/login":
      case "POST /accounts/login/":
        return login(app, ctx, manifest);
      case "POST /accounts/logout":
      case "POST /accounts/logout/":
        return logout(app, ctx);
      default:
        if (ctx.path.startsWith("/accounts/password/reset")) {
          const handled = await passwordResetPages(app, ctx, { manifest, realm: await realmInfo(app) });
          if (handled) return;
        }
        if (ctx.path.startsWith("/accounts/confirm_new_email")) {
          const handled = await emailChangePages(app, ctx, { manifest, realm: await realmInfo(app) });
          if (handled) return;
        }
        await next();
    }
  };
}

interface Current {
  token: string;
  session: SessionRecord;
}

async function currentSession(app: App, ctx: Context): Promise<Current | null> {
  const token = cookieValue(ctx.get("cookie"), SESSION_COOKIE);
  if (token === undefined || !hasSessionTokenFormat(token)) return null;
  const session = await liveSession(app, token);
  return session ? { token, session } : null;
}

export async function realmInfo(app: App): Promise<RealmInfo> {
  const realm = await app.realms.primaryRealm(app.knex);
  return {
    name: realm?.realm.name ?? "chatd",
    description: realm?.realm.description ?? "",
    url: realmUrl(app.config),
  };
}

async function home(app: App, ctx: Context, manifest: WebManifest | null): Promise<void> {
  const current = await currentSession(app, ctx);
  const realm = current ? await app.realms.get(app.knex, current.session.realmId) : null;
  const user = realm?.user(current!.session.userId);
  // The checks /json/ makes: the app would load only to be refused.
  if (!current || !manifest || !user || !bool(user.is_active) || bool(realm!.realm.deactivated)) {
    return loginPage(app, ctx, manifest, {});
  }
  ctx.set(PAGE_HEADERS(APP_POLICY));
  ctx.type = "text/html; charset=utf-8";
  ctx.body = renderAppShell(manifest, {
    realm: await realmInfo(app),
    csrfToken: csrfTokenFor(current.token),
    theme: themeOf(user.color_scheme),
    emailEnabled: emailEnabled(app.config),
  });
}

/** Zulip's color_scheme: 1 follows the system (decided by the stylesheet), 2 dark, 3 light. */
const themeOf = (scheme: number | undefined): Theme =>
  scheme === 2 ? "dark" : scheme === 3 ? "light" : null;

async function loginPage(
  app: App,
  ctx: Context,
  manifest: WebManifest | null,
  page: { email?: string; error?: string; notice?: string },
  status = 200,
): Promise<void> {
  ctx.status = status;
  ctx.set(PAGE_HEADERS(PAGE_POLICY));
  ctx.type = "text/html; charset=utf-8";
  const primary = await app.realms.primaryRealm(app.knex);
  const signUp = primary !== null && openSignUpAllowed(primary);
  ctx.body = renderLoginPage(manifest, { realm: await realmInfo(app), signUp, ...page });
}

/** What the login page says for each refusal (Zulip's wording where it has one). */
const LOGIN_ERRORS: Partial<Record<JsonableError["code"], string>> = {
  AUTHENTICATION_FAILED:
    "Please enter a correct email and password. Note that both fields may be case-sensitive.",
  USER_DEACTIVATED: "Your account is no longer active.",
  REALM_DEACTIVATED: "This organization has been deactivated.",
  RATE_LIMIT_HIT:
    "You're making too many attempts to sign in. Try again later or contact your organization administrator for help.",
};

const loginError = (err: JsonableError) => LOGIN_ERRORS[err.code] ?? err.message;

async function login(app: App, ctx: Context, manifest: WebManifest | null): Promise<void> {
  const params = requestParams(ctx);
  const email = params.get("username") ?? params.get("email") ?? "";
  try {
    validateSameOrigin({ method: ctx.method, header: (name) => ctx.get(name) }, publicOrigin(app));
    const previous = await currentSession(app, ctx);
    const { token } = await checkLogin(app, email, params.get("password") ?? "");
    // The browser's cookie is replaced: the session it named would live on, unreachable.
    if (previous) await checkLogout(app, previous.session.id);
    ctx.append("Set-Cookie", sessionCookie(token, cookieOptions(app, app.config.session_max_age_secs)));
    redirect(ctx, `/${deepLink(params.get("next") ?? "")}`);
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    ctx.set(err.headers);
    await loginPage(
      app,
      ctx,
      manifest,
      { email, error: loginError(err) },
      err.code === "CSRF_FAILED" ? 403 : err.status === 429 ? 429 : 200,
    );
  }
}

/** Only a fragment of this app (a narrow) may follow a login: never another site. */
const deepLink = (next: string) => (/^#[^\s]*$/.test(next) && next.length <= 2000 ? next : "");

async function logout(app: App, ctx: Context): Promise<void> {
  const current = await currentSession(app, ctx);
  if (current) {
    const csrfToken = ctx.get("x-csrftoken") || (requestParams(ctx).get("csrfmiddlewaretoken") ?? "");
    validateCsrf(
      { method: "POST", header: (name) => (name === "x-csrftoken" ? csrfToken : ctx.get(name)) },
      current.token,
      publicOrigin(app),
    );
    await checkLogout(app, current.session.id);
  }
  ctx.append("Set-Cookie", sessionCookie("", cookieOptions(app, 0)));
  if (ctx.accepts(["html", "json"]) === "json") {
    ctx.body = { result: "success", msg: "" };
    return;
  }
  redirect(ctx, "/");
}

export const cookieOptions = (app: App, maxAgeSecs: number) => ({
  secure: app.config.external_url.startsWith("https:"),
  maxAgeSecs,
});

export function redirect(ctx: Context, location: string): void {
  ctx.status = 303;
  ctx.set("Cache-Control", "no-store");
  ctx.redirect(location);
  ctx.status = 303;
}
