import type { Context } from "koa";
import type { App } from "../app.js";
import { checkConfirmEmailChange, EMAIL_CHANGE_CONFIRM_PATH } from "../actions/email-change.js";
import { JsonableError } from "../errors.js";
import type { ConfirmationState } from "../lib/confirmation-tokens.js";
import { escapeHtml } from "../lib/html.js";
import { cardPage, type PageOptions } from "./password-reset-pages.js";

/**
 * The page an email change's confirmation link opens (Zulip's confirm_email_change): it
 * makes the change, as Zulip's does on GET, and says so; a link no longer valid, or a
 * change no longer allowed, is a plain message.
 */

const LINK_MESSAGES: Record<Exclude<ConfirmationState, "valid">, string> = {
  used: "This confirmation link has already been used.",
  expired: "This confirmation link has expired.",
  revoked: "This confirmation link was replaced by a newer one.",
  unknown: "This confirmation link is not valid.",
};

const TITLE = "Email address change";

/** Handles the confirmation link; false for any other request. */
export async function emailChangePages(app: App, ctx: Context, options: PageOptions): Promise<boolean> {
  const path = ctx.path.endsWith("/") ? ctx.path : `${ctx.path}/`;
  if (path !== EMAIL_CHANGE_CONFIRM_PATH || ctx.method !== "GET") return false;
  const token = typeof ctx.query.token === "string" ? ctx.query.token : "";
  let message: string;
  let status = 200;
  try {
    const { state, email } = await checkConfirmEmailChange(app, token);
    if (state === "valid") message = `Your email address is now ${email}. Use it to log in from now on.`;
    else {
      message = LINK_MESSAGES[state];
      status = state === "unknown" ? 404 : 410;
    }
  } catch (err) {
    if (!(err instanceof JsonableError)) throw err;
    message = err.message;
    status = 400;
  }
  cardPage(
    ctx,
    options,
    {
      title: TITLE,
      body: `<h1>${TITLE}</h1>
<p role="${status === 200 ? "status" : "alert"}">${escapeHtml(message)}</p>
<p class="card-links"><a href="/">Go to ${escapeHtml(options.realm.name)}</a></p>`,
    },
    status,
  );
  return true;
}
