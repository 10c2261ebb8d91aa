import { testConfig } from "../../src/config.js";
import { createKnex } from "../../src/db/knex.js";
import { Client, expectSuccess } from "../../test/helpers/client.js";
import {
  basicAuth,
  exited,
  initDataDir,
  startServerProcess,
  type ServerProcess,
} from "../../test/helpers/cli.js";
import { messagesAfter, userWithKey } from "./fault-setup.js";
import { seededRandom } from "./fuzz-cases.js";

/**
 * Part (b) of `npm run test:faults`: kill -9 under concurrent sends. Every cycle starts the
 * real server, lets several clients send messages at once (recording each acknowledged one),
 * SIGKILLs it at a random moment, checks the database file with `PRAGMA integrity_check`,
 * restarts it and asserts that every message ever acknowledged is there, unchanged.
 */

export interface KillFigures {
  cycles: number;
  requests: number;
  serverErrors: number;
  acknowledged: number;
  lost: number;
  damaged: number;
  integrityFailures: number;
  failures: string[];
}

interface Sender {
  client: Client;
  userId: number;
  /** Whom this sender's direct messages go to. */
  peer: { id: number; email: string };
}

interface Acknowledged {
  id: number;
  senderId: number;
  content: string;
  /** The topic of a channel message; "" for a direct message. */
  topic: string;
  /** The channel's ID, or the sorted user IDs of a direct message's conversation. */
  recipient: number | number[];
}

interface FetchedMessage {
  id: number;
  sender_id: number;
  content: string;
  subject: string;
  type: "stream" | "private";
  stream_id?: number;
  display_recipient: string | Array<{ id: number }>;
}

/** A loaded, shared machine may take long to start a server (a hang still fails). */
const START_TIMEOUT_MS = 60_000;
const SENDERS = 4;
const CLIENTS = 8;

/** The owner and three members, each a sender; their direct messages go to the owner (the owner's to a member). */
async function setUp(url: string, owner: { email: string; api_key: string; user_id: number }) {
  const ownerClient = new Client(url, { email: owner.email, apiKey: owner.api_key });
  const senders: Sender[] = [];
  const ownerPeer = { id: owner.user_id, email: owner.email };
  for (let i = 1; i < SENDERS; i++) {
    const user = await userWithKey(
      ownerClient,
      `sender${i}@zulip.test`,
      `sender-${i}-password`,
      `Sender ${i}`,
    );
    senders.push({ client: user.client, userId: user.userId, peer: ownerPeer });
  }
  senders.unshift({
    client: ownerClient,
    userId: owner.user_id,
    peer: { id: senders[0]!.userId, email: `sender1@zulip.test` },
  });
  const streams = expectSuccess(await ownerClient.get("/streams")).streams as Array<{
    stream_id: number;
    name: string;
  }>;
  const general = streams.find((stream) => stream.name === "general");
  if (!general) throw new Error("no general channel");
  return { ownerClient, senders, generalId: general.stream_id };
}

/** Every message the owner can read (all of them here), by ID, raw Markdown. */
async function allMessages(owner: Client): Promise<Map<number, FetchedMessage>> {
  const messages = await messagesAfter<FetchedMessage>(owner, 0, { apply_markdown: false });
  return new Map(messages.map((message) => [message.id, message]));
}

/** What differs between a message as acknowledged and as stored, or null. */
function damage(sent: Acknowledged, stored: FetchedMessage): string | null {
  if (stored.content !== sent.content) return `content ${JSON.stringify(stored.content)}`;
  if (stored.subject !== sent.topic) return `topic ${JSON.stringify(stored.subject)}`;
  if (stored.sender_id !== sent.senderId) return `sender ${stored.sender_id}`;
  if (typeof sent.recipient === "number") {
    if (stored.type !== "stream" || stored.stream_id !== sent.recipient)
      return `recipient ${stored.stream_id}`;
  } else {
    const ids = Array.isArray(stored.display_recipient)
      ? stored.display_recipient.map((user) => user.id).sort((a, b) => a - b)
      : [];
    if (stored.type !== "private" || ids.join() !== sent.recipient.join()) return `recipients ${ids.join()}`;
  }
  return null;
}

async function integrityCheck(dataDir: string, driver: string): Promise<string> {
  const knex = createKnex(testConfig(dataDir, { db_driver: driver as "sqlite3" | "better-sqlite3" }));
  try {
    const rows = await knex.raw<Array<{ integrity_check: string }>>("PRAGMA integrity_check");
    return rows.map((row) => row.integrity_check).join("; ");
  } finally {
    await knex.destroy();
  }
}

export async function killCycles(
  dataDir: string,
  driver: string,
  options: { cycles: number; seed: number; log: (line: string) => void },
): Promise<KillFigures> {
  const random = seededRandom(options.seed);
  const figures: KillFigures = {
    cycles: 0,
    requests: 0,
    serverErrors: 0,
    acknowledged: 0,
    lost: 0,
    damaged: 0,
    integrityFailures: 0,
    failures: [],
  };
  const env = { CHATD_DB_DRIVER: driver, CHATD_LOG_LEVEL: "error" };
  const owner = initDataDir(dataDir);
  let server: ServerProcess = await startServerProcess(dataDir, { env, startTimeoutMs: START_TIMEOUT_MS });
  const acknowledged: Acknowledged[] = [];
  const wrong = new Set<number>();
  try {
    const { senders, generalId } = await setUp(server.url, owner);
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      let sending = true;
      let firstAck!: () => void;
      const acked = new Promise<void>((r) => (firstAck = r));
      const client = async (n: number) => {
        const sender = senders[n % senders.length]!;
        const client = new Client(server.url, sender.client.credentials);
        for (let i = 0; sending; i++) {
          const direct = (n + i) % 3 === 0;
          const content = `cycle ${cycle} client ${n} ${"x".repeat(i % 40)} message ${i} **bold** ✓`;
          const topic = direct ? "" : `kill ${n % 5} ✓`;
          const params = direct
            ? { type: "direct", to: JSON.stringify([sender.peer.id]), content }
            : { type: "stream", to: generalId, topic, content };
          try {
            figures.requests++;
            const res = await client.post("/messages", params);
            if (res.status >= 500) {
              figures.serverErrors++;
              figures.failures.push(`cycle ${cycle}: POST /messages answered ${res.status}`);
            }
            if (res.status !== 200) continue;
            acknowledged.push({
              id: res.body.id as number,
              senderId: sender.userId,
              content,
              topic,
              recipient: direct ? [sender.userId, sender.peer.id].sort((a, b) => a - b) : generalId,
            });
            firstAck();
          } catch {
            return; // the server is gone: this send was never acknowledged
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, n) => client(n));
      // The random moment is counted from the first acknowledgement, so every cycle kills mid-sends
      // (a freshly started server under load may take a while to answer its first).
      const first = await Promise.race([
        acked.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 30_000)),
      ]);
      if (!first) figures.failures.push(`cycle ${cycle}: no send acknowledged within 30 s`);
      await new Promise((r) => setTimeout(r, 100 + random() * 1400));
      server.child.kill("SIGKILL");
      await exited(server.child);
      sending = false;
      await Promise.all(clients);
      figures.cycles++;

      const integrity = await integrityCheck(dataDir, driver);
      if (integrity !== "ok") {
        figures.integrityFailures++;
        figures.failures.push(`cycle ${cycle}: integrity_check: ${integrity.slice(0, 200)}`);
      }
      server = await startServerProcess(dataDir, { env, startTimeoutMs: START_TIMEOUT_MS });
      const ownerClient = new Client(server.url, senders[0]!.client.credentials);
      const stored = await allMessages(ownerClient);
      for (const sent of acknowledged) {
        const message = stored.get(sent.id);
        const problem = message ? damage(sent, message) : "missing";
        // Counted once per message, in the first cycle that finds it wrong.
        if (!problem || wrong.has(sent.id)) continue;
        wrong.add(sent.id);
        if (message) figures.damaged++;
        else figures.lost++;
        figures.failures.push(`cycle ${cycle}: acknowledged message ${sent.id}: ${problem}`);
      }
      const { email, apiKey } = senders[1]!.client.credentials!;
      const serving = await fetch(`${server.url}/api/v1/users/me`, {
        headers: basicAuth(email, apiKey),
      }).then(
        (res) => res.status === 200,
        () => false,
      );
      if (!serving) figures.failures.push(`cycle ${cycle}: the restarted server does not serve`);
      if (cycle % 5 === 0 || cycle === options.cycles) {
        options.log(
          `  ${driver}: kill -9 cycle ${cycle}, ${acknowledged.length} acknowledged, ${wrong.size} lost or changed`,
        );
      }
    }
  } finally {
    figures.acknowledged = acknowledged.length;
    const code = await server.stop();
    if (code !== 0) figures.failures.push(`the server exited with ${code} on SIGTERM after the cycles`);
  }
  return figures;
}
