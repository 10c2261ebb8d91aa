import type { App } from "../app.js";
import type { Tx } from "../db/tx.js";
import { generateSessionToken, hashSessionToken } from "../lib/sessions.js";
import { authenticateByPassword } from "./auth.js";

export interface NewSession {
  /** The cookie's value: the only time it exists in clear. */
  token: string;
  userId: number;
}

/** The web client's login: a password login that starts a session instead of issuing a key. */
export async function checkLogin(app: App, username: string, password: string): Promise<NewSession> {
  const user = await authenticateByPassword(app, username, password);
  const token = await app.db.transaction((tx) => doCreateSession(app, tx, user.id));
  return { token, userId: user.id };
}

export async function doCreateSession(app: App, tx: Tx, userId: number): Promise<string> {
  const token = generateSessionToken();
  await tx.knex("sessions").insert({
    token_hash: hashSessionToken(token),
    user_id: userId,
    created_at: tx.now,
    last_active_at: tx.now,
  });
  return token;
}

/** Log out: the session and its event queues end. */
export async function checkLogout(app: App, sessionId: number): Promise<void> {
  await app.db.transaction(async (tx) => {
    const ended = await tx.knex("sessions").where({ id: sessionId }).delete();
    if (ended > 0) endedOnCommit(app, tx, [sessionId]);
  });
}

/**
 * Ends the user's sessions but one (a password change keeps the session that made it),
 * or all of them (deactivation).
 */
export async function doEndUserSessions(
  app: App,
  tx: Tx,
  userId: number,
  keepSessionId?: number,
): Promise<void> {
  const query = tx.knex("sessions").where({ user_id: userId });
  if (keepSessionId !== undefined) query.whereNot({ id: keepSessionId });
  const ids = (await query.clone().select<Array<{ id: number }>>("id")).map((row) => row.id);
  if (ids.length === 0) return;
  await tx.knex("sessions").whereIn("id", ids).delete();
  endedOnCommit(app, tx, ids);
}

/** Sessions idle or old past their lifetimes, deleted in the background (they are refused anyway). */
export async function doDeleteExpiredSessions(app: App, tx: Tx): Promise<number> {
  const idleBefore = tx.now - app.config.session_idle_timeout_secs;
  const createdBefore = tx.now - app.config.session_max_age_secs;
  const ids = (
    await tx
      .knex("sessions")
      .where("last_active_at", "<=", idleBefore)
      .orWhere("created_at", "<=", createdBefore)
      .select<Array<{ id: number }>>("id")
  ).map((row) => row.id);
  if (ids.length === 0) return 0;
  await tx.knex("sessions").whereIn("id", ids).delete();
  endedOnCommit(app, tx, ids);
  return ids.length;
}

function endedOnCommit(app: App, tx: Tx, sessionIds: readonly number[]): void {
  tx.afterCommit(() => app.sessions.ended(sessionIds));
}
