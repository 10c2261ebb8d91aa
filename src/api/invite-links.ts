import type { App } from "../app.js";
import type { SentInvitation } from "../actions/invites.js";
import { emailEnabled } from "../lib/email-settings.js";

/**
 * chatd's `invite_links` (an extension of POST /invites and its resend): with email off
 * nothing is mailed, so the inviter who made the links gets them to hand over, as the CLI
 * prints them. Only in this answer: a link is the invitee's secret and is never logged.
 */
export const inviteLinksAnswer = (app: App, sent: readonly SentInvitation[]) =>
  emailEnabled(app.config) ? {} : { invite_links: sent.map(({ email, link }) => ({ email, link })) };
