import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Transporter } from "nodemailer";
import type { Config } from "../config.js";
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "../db/private-files.js";
import type { EmailContent } from "./email-content.js";
import { emailFrom, smtpOptions } from "./email-settings.js";

/**
 * How chatd's email leaves the process: through the configured SMTP server (nodemailer),
 * or, with email off, as a `.eml` file under <data_dir>/outbox/. Shared by the delivery
 * worker and `chatd email test`.
 */

/** A message ready to go: who gets it and in whose name. */
export interface OutgoingEmail {
  readonly to: string;
  /** The display name of the From address: the realm's name. */
  readonly fromName: string;
  readonly content: EmailContent;
}

/** The answer of an attempt: the SMTP server's answer, or where the file was written. */
export type SendOutcome =
  | { readonly ok: true; readonly answer: string }
  | { readonly ok: false; readonly answer: string; readonly permanent: boolean };

/**
 * Bounded waits: a silent server must not hold a worker run (and its claims) for the
 * minutes nodemailer waits by default.
 */
const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

export const outboxDir = (config: Config) => join(config.data_dir, "outbox");

function mailOptions(config: Config, email: OutgoingEmail) {
  return {
    from: { name: email.fromName, address: emailFrom(config) },
    to: email.to,
    subject: email.content.subject,
    text: email.content.text,
    html: email.content.html,
  };
}

export type SmtpTransport = Transporter;

/**
 * A pooled SMTP transport for one worker run (a few connections, reused); close it after.
 * nodemailer is loaded on first use: most servers send little or no email.
 */
export async function smtpTransport(config: Config): Promise<SmtpTransport> {
  const { default: nodemailer } = await import("nodemailer");
  return nodemailer.createTransport({ ...smtpOptions(config), ...TIMEOUTS, pool: true, maxConnections: 2 });
}

/** Sends one email; never throws for what the server or the network says. */
export async function sendOverSmtp(
  config: Config,
  transport: SmtpTransport,
  email: OutgoingEmail,
): Promise<SendOutcome> {
  try {
    const info = (await transport.sendMail(mailOptions(config, email))) as { response?: string };
    return { ok: true, answer: redact(config, info.response ?? "accepted") };
  } catch (err) {
    return { ok: false, ...describeSmtpError(config, err) };
  }
}

/**
 * What a failure says, for `last_error` and the CLI: the server's answer when it gave one
 * (never the message), else the network's error. A 5xx answer is permanent (RFC 5321):
 * sending again would be refused again.
 */
export function describeSmtpError(config: Config, err: unknown): { answer: string; permanent: boolean } {
  const e = err as { response?: unknown; responseCode?: unknown; message?: unknown };
  const answer =
    typeof e.response === "string" && e.response !== ""
      ? e.response
      : typeof e.message === "string"
        ? e.message
        : String(err);
  const permanent = typeof e.responseCode === "number" && e.responseCode >= 500 && e.responseCode < 600;
  return { answer: redact(config, answer).slice(0, 1000), permanent };
}

/** The SMTP password never reaches a log or a row, even if a server echoed it. */
function redact(config: Config, text: string): string {
  const secret = config.smtp_password;
  return secret.length >= 4 ? text.split(secret).join("[redacted]") : text;
}

/** The email as an RFC 822 message (what the SMTP server would have been given). */
export async function buildMessage(config: Config, email: OutgoingEmail): Promise<Buffer> {
  const { default: MailComposer } = await import("nodemailer/lib/mail-composer");
  return new MailComposer(mailOptions(config, email)).compile().build();
}

/**
 * Email off: writes the message as a private `.eml` file under outbox/ and returns its
 * path. The name sorts by time and is unique without a lock.
 */
export async function writeToOutbox(config: Config, email: OutgoingEmail, nowMs: number): Promise<string> {
  const dir = outboxDir(config);
  ensurePrivateDir(dir);
  const stamp = new Date(nowMs).toISOString().replace(/[:.]/g, "-");
  const path = join(dir, `${stamp}-${randomBytes(4).toString("hex")}.eml`);
  writeFileSync(path, await buildMessage(config, email), { mode: PRIVATE_FILE_MODE, flag: "wx" });
  return path;
}
