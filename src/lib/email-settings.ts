import { emailHost, type Config } from "../config.js";

/** Whether email goes out through an SMTP server; otherwise it is written under outbox/. */
export const emailEnabled = (config: Config): boolean => config.smtp_host !== "";

/** The From address of every email chatd sends. */
export const emailFrom = (config: Config): string => config.email_from || `noreply@${emailHost(config)}`;

/** How to reach the SMTP server (nodemailer's transport options), when email is on. */
export function smtpOptions(config: Config) {
  return {
    host: config.smtp_host,
    port: config.smtp_port,
    secure: config.smtp_security === "tls",
    requireTLS: config.smtp_security === "starttls",
    ignoreTLS: config.smtp_security === "none",
    auth: config.smtp_username ? { user: config.smtp_username, pass: config.smtp_password } : undefined,
  };
}
