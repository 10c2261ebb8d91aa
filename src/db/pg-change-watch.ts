import type { Knex } from "knex";

/** The channel admin commands notify after a commit (see notifyExternalChange). */
export const CHANGE_CHANNEL = "chatd_external_change";

interface PgClient {
  query(sql: string): Promise<unknown>;
  on(event: "notification" | "error" | "end", listener: () => void): void;
}
interface PgKnexClient {
  acquireRawConnection(): Promise<PgClient>;
  destroyRawConnection(conn: PgClient): Promise<void>;
}

/**
 * PostgreSQL's counterpart of sqlite-change-watch.ts, with the same shape: a dedicated
 * connection LISTENs on CHANGE_CHANNEL, and each notification (sent by an admin
 * command's transaction, delivered only when it commits) calls `onChange`. A lost
 * connection is opened again after `intervalMs`, and a reconnect counts as a change:
 * notifications sent meanwhile were missed. Resolves once the first attempt is done.
 */
export async function watchExternalChanges(
  knex: Knex,
  intervalMs: number,
  onChange: () => void,
): Promise<() => void> {
  const client = knex.client as unknown as PgKnexClient;
  let conn: PgClient | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let connectedBefore = false;
  const retry = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, intervalMs);
    timer.unref();
  };
  const connect = async () => {
    try {
      const next = await client.acquireRawConnection();
      if (stopped) return void (await client.destroyRawConnection(next));
      next.on("notification", onChange);
      next.on("error", () => undefined);
      next.on("end", () => {
        if (conn === next) conn = null;
        retry();
      });
      await next.query(`LISTEN ${CHANGE_CHANNEL}`);
      conn = next;
      if (connectedBefore) onChange();
      connectedBefore = true;
    } catch {
      retry();
    }
  };
  // Armed once LISTEN is active (or the first attempt failed and a retry is due).
  await connect();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const current = conn;
    conn = null;
    if (current) void client.destroyRawConnection(current).catch(() => undefined);
  };
}

/** Tells every listening server, once `trx` commits, that data changed behind its back. */
export async function notifyExternalChange(trx: Knex.Transaction): Promise<void> {
  await trx.raw(`NOTIFY ${CHANGE_CHANNEL}`);
}
