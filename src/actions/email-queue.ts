import type { App } from "../app.js";
import type { Tx } from "../db/tx.js";
import type { EmailContent } from "../lib/email-content.js";
import { EMAIL_PICKUP_WINDOW_MS } from "./email-delivery.js";

export interface QueuedEmail {
  /** The realm it is in the name of; null for server-wide mail. */
  readonly realmId: number | null;
  readonly to: string;
  readonly content: EmailContent;
  /** UNIX seconds: not before then (a reminder); default now. */
  readonly sendAt?: number;
}

/**
 * Queues emails in the transaction that causes them: committed with it or not at all, and
 * never sent from the request (the delivery worker sends them after the commit).
 */
export async function queueEmails(app: App, tx: Tx, emails: readonly QueuedEmail[]): Promise<void> {
  if (emails.length === 0) return;
  const nowMs = app.clock.nowMs();
  await tx.knex("emails").insert(
    emails.map((email) => ({
      realm_id: email.realmId,
      to_address: email.to,
      subject: email.content.subject,
      text_body: email.content.text,
      html_body: email.content.html,
      state: "queued",
      tries: 0,
      next_attempt_at: email.sendAt === undefined ? nowMs : email.sendAt * 1000,
      created_at: tx.now,
    })),
  );
  tx.afterCommit(() => app.emailDelivery.noteDueSoon(EMAIL_PICKUP_WINDOW_MS));
}
