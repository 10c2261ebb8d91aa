import { Command } from "commander";
import { realmUrl } from "../../config.js";
import { configFor, withApp } from "../context.js";
import { CliError, printJson, printLine } from "../output.js";

// Loaded when the command runs: a server never needs them.
const transport = () => import("../../lib/email-transport.js");

interface TestOptions {
  to?: string;
  json?: boolean;
}

/**
 * `chatd email test`: sends one email now, through the configured SMTP server (not the
 * queue), so an operator sees the server's answer, or its refusal, at once.
 */
const testCommand = new Command("test")
  .description("send a test email now and print the SMTP server's answer (outbox/ when email is off)")
  .option("--to <address>", "where to send it")
  .option("--no-input", "never prompt (this command asks nothing)")
  .option(
    "--json",
    'print {"to", "sent", "answer"} (answer: the server\'s, or the .eml file written) as JSON',
  )
  .action(async (opts: TestOptions, cmd: Command) => {
    const { isValidEmail } = await import("../../lib/emails.js");
    const to = opts.to?.trim() ?? "";
    if (!isValidEmail(to))
      throw new CliError(`--to: ${to === "" ? "required" : `not an email address: ${to}`}`);
    await withApp(
      configFor(cmd),
      async (app) => {
        const { composeEmail } = await import("../../lib/email-content.js");
        const { emailEnabled } = await import("../../lib/email-settings.js");
        const { sendOverSmtp, smtpTransport, writeToOutbox } = await transport();
        const realmName = (await app.realms.primaryRealm(app.knex))?.realm.name ?? "chatd";
        const serverUrl = realmUrl(app.config);
        const email = {
          to,
          fromName: realmName,
          content: composeEmail({
            realmName,
            serverUrl,
            subject: `Test email from ${realmName}`,
            paragraphs: [
              `This is a test email from the chatd server at ${serverUrl}.`,
              "It arrived, so the server can send email (invitations, password resets, missed messages).",
            ],
          }),
        };
        if (!emailEnabled(app.config)) {
          const path = await writeToOutbox(app.config, email, app.clock.nowMs());
          if (opts.json) printJson({ to, sent: false, answer: path });
          else printLine(`email is off (no smtp_host): nothing was sent; the email was written to ${path}`);
          return;
        }
        const smtp = await smtpTransport(app.config);
        try {
          const outcome = await sendOverSmtp(app.config, smtp, email);
          if (!outcome.ok) {
            throw new CliError(
              `sending to ${to} through ${app.config.smtp_host}:${app.config.smtp_port} failed: ${outcome.answer}`,
            );
          }
          if (opts.json) printJson({ to, sent: true, answer: outcome.answer });
          else printLine(`sent to ${to}; the SMTP server answered: ${outcome.answer}`);
        } finally {
          smtp.close();
        }
      },
      { doing: "sending a test email" },
    );
  });

export const emailCommand = new Command("email").description("outgoing email").addCommand(testCommand);
