import type { Knex } from "knex";
import type { App } from "../app.js";
import { claimable, claimRows, releaseClaim } from "../db/claims.js";
import { int, type DbBigInt } from "../db/rows.js";
import { emailEnabled } from "../lib/email-settings.js";
import {
  sendOverSmtp,
  smtpTransport,
  writeToOutbox,
  type OutgoingEmail,
  type SendOutcome,
  type SmtpTransport,
} from "../lib/email-transport.js";

/**
 * The email worker: sends the queued rows of `emails` (actions/email-queue.ts), run by
 * the app's `emailDelivery` timer, never on a request's path. As the outgoing-webhook
 * worker, it claims rows before sending them (db/claims.ts), so of several processes only
 * one sends each; a row stays `queued` until its attempt's result is written, so an email
 * under way when the server stops goes out after the restart (at least once).
 *
 * A refusal the server calls temporary (4xx) or a network error is retried after
 * RETRY_DELAY_MS, doubled each time, MAX_TRIES attempts in all; a permanent refusal (5xx)
 * or the last attempt leaves the row `failed` with the server's answer in `last_error`.
 * With email off, each email is written under outbox/ and marked sent.
 */

/** Attempts in all before a row is `failed` (about 15 minutes of retries). */
export const MAX_TRIES = 6;
/** Wait before the first retry (on the app's clock, which tests move); doubled for each further one. */
export const RETRY_DELAY_MS = 30_000;
/** Emails one run claims; the next run takes the rest at once. */
const BATCH = 20;
/** A claim outlives any run's attempts (bounded by the transport's timeouts). */
const LEASE_MS = 15 * 60_000;
/** How long a new email may wait for the worker: one run serves what commits meanwhile. */
export const EMAIL_PICKUP_WINDOW_MS = 50;

const TABLE = "emails";

interface EmailRow {
  id: number;
  realm_id: number | null;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  tries: number;
}

/** Sends what is due; returns when to run next (seconds), or null when nothing waits. */
export async function deliverDueEmails(app: App): Promise<number | null> {
  const nowMs = app.clock.nowMs();
  const due = (query: Knex.QueryBuilder) =>
    query.where({ state: "queued" }).where("next_attempt_at", "<=", nowMs);
  const dueIds = await claimable(due(app.knex(TABLE)), nowMs)
    .orderBy("id")
    .limit(BATCH)
    .pluck<number[]>("id");
  const ids =
    dueIds.length === 0
      ? []
      : await app.db.transaction((tx) =>
          claimRows(tx.knex, TABLE, dueIds, { nowMs, leaseMs: LEASE_MS }, due),
        );
  if (ids.length > 0) {
    const rows = await app.knex<EmailRow>(TABLE).whereIn("id", ids).orderBy("id");
    const transport = emailEnabled(app.config) ? await smtpTransport(app.config) : null;
    try {
      await Promise.all(
        rows.map((row) =>
          deliverOne(app, transport, row).catch(async (err: unknown) => {
            // One email's trouble (outbox/ not writable) neither stops the others nor holds
            // its claim: it is retried as a failed attempt.
            app.logger.error(`email ${row.id}: sending failed`, err);
            await recordOutcome(app, row, { ok: false, answer: "internal error", permanent: false });
          }),
        ),
      );
    } finally {
      transport?.close();
    }
    // A full batch: more may be due now.
    if (dueIds.length === BATCH) return app.clock.nowMs() / 1000;
  }
  return nextDueSeconds(app, app.clock.nowMs());
}

/** The next retry of a queued row, or the end of a claim (another process's, or a dead one's). */
async function nextDueSeconds(app: App, nowMs: number): Promise<number | null> {
  const queued = () => app.knex(TABLE).where({ state: "queued" });
  // One read after the other: together they took a second read connection, which an
  // idle server then kept.
  const retry = await queued()
    .where("next_attempt_at", ">", nowMs)
    .first<{ next: DbBigInt | null } | undefined>(app.knex.raw("MIN(next_attempt_at) AS next"));
  const leaseEnd = await queued()
    .where("claimed_until", ">", nowMs)
    .first<{ next: DbBigInt | null } | undefined>(app.knex.raw("MIN(claimed_until) AS next"));
  const times = [retry?.next, leaseEnd?.next].filter((t) => t != null).map((t) => int(t));
  return times.length === 0 ? null : Math.min(...times) / 1000;
}

async function deliverOne(app: App, transport: SmtpTransport | null, row: EmailRow): Promise<void> {
  const email: OutgoingEmail = {
    to: row.to_address,
    fromName: await senderName(app, row.realm_id),
    content: { subject: row.subject, text: row.text_body, html: row.html_body },
  };
  let outcome: SendOutcome;
  if (transport) {
    outcome = await sendOverSmtp(app.config, transport, email);
  } else {
    const path = await writeToOutbox(app.config, email, app.clock.nowMs());
    // Where only: the body holds links that are as good as a password.
    app.logger.info(`email ${row.id}: email is off (no smtp_host); written to ${path}`);
    outcome = { ok: true, answer: path };
  }
  await recordOutcome(app, row, outcome);
}

/** The From name: the realm's, or the server's for server-wide mail. */
async function senderName(app: App, realmId: number | null): Promise<string> {
  if (realmId === null) return (await app.realms.primaryRealm(app.knex))?.realm.name ?? "chatd";
  return (await app.realms.get(app.knex, realmId)).realm.name;
}

async function recordOutcome(app: App, row: EmailRow, outcome: SendOutcome): Promise<void> {
  const tries = row.tries + 1;
  const nowMs = app.clock.nowMs();
  if (outcome.ok) {
    if (emailEnabled(app.config)) app.logger.info(`email ${row.id}: sent (${outcome.answer})`);
    await app.db.transaction((tx) =>
      tx
        .knex(TABLE)
        .where({ id: row.id })
        .update({ state: "sent", tries, sent_at: tx.now, last_error: null, ...releaseClaim }),
    );
    return;
  }
  const giveUp = outcome.permanent || tries >= MAX_TRIES;
  const nextMs = nowMs + RETRY_DELAY_MS * 2 ** (tries - 1);
  app.logger.warn(
    `email ${row.id}: attempt ${tries} failed (${outcome.answer})` +
      (giveUp ? "; giving up" : `; retrying in ${(nextMs - nowMs) / 1000} s`),
  );
  await app.db.transaction(async (tx) => {
    // Released: whichever process is free when the retry is due sends it.
    await tx
      .knex(TABLE)
      .where({ id: row.id })
      .update({
        state: giveUp ? "failed" : "queued",
        tries,
        last_error: outcome.answer,
        ...(giveUp ? {} : { next_attempt_at: nextMs }),
        ...releaseClaim,
      });
    if (!giveUp) tx.afterCommit(() => app.emailDelivery.noteDue(nextMs / 1000));
  });
}
