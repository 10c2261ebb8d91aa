// The outgoing-webhook scenario's measurement: POST /messages at a fixed rate, each message
// @-mentioning an outgoing-webhook bot whose endpoint (a plain HTTP server, slow-endpoint.ts) answers
// only after 2 s, against the same sends mentioning a person instead, in alternating phases
// of one run. A slow endpoint must not show in the send latency.
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { BenchUser } from "./dataset.js";
import { BENCH_DIR, cpuSeconds, inputFile, LOAD_CORE, runJson, spawnNode, stopProcess } from "./processes.js";
import { percentile } from "./stats.js";

/** How long the bot's endpoint takes to answer. */
export const ENDPOINT_DELAY_MS = 2000;

export interface SlowEndpoint {
  url: string;
  /** Deliveries the endpoint has answered so far. */
  answered: () => Promise<number>;
  close: () => Promise<void>;
}

/** The bot's service (slow-endpoint.ts), in a process on the load generator's core. */
export async function startSlowEndpoint(): Promise<SlowEndpoint> {
  const child = await spawnNode(
    [join(BENCH_DIR, "slow-endpoint.js"), inputFile({ delayMs: ENDPOINT_DELAY_MS })],
    { core: LOAD_CORE },
  );
  const line = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`slow-endpoint exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", resolve);
  });
  const base = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
  return {
    url: `${base}/`,
    answered: async () => ((await (await fetch(`${base}/count`)).json()) as { answered: number }).answered,
    close: () => stopProcess(child),
  };
}

/** Creates the outgoing-webhook bot (POST /bots, as its owner would); returns its name. */
export async function createWebhookBot(url: string, owner: BenchUser, payloadUrl: string): Promise<string> {
  const fullName = "Bench Hook";
  const res = await fetch(`${url}/api/v1/bots`, {
    method: "POST",
    headers: { authorization: basic(owner), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      full_name: fullName,
      short_name: "benchhook",
      bot_type: "3",
      payload_url: JSON.stringify(payloadUrl),
      interface_type: "1",
    }),
  });
  if (!res.ok) throw new Error(`POST /bots: ${res.status} ${await res.text()}`);
  return fullName;
}

interface PhaseFigures {
  p50_ms: number;
  p99_ms: number;
  sent: number;
  /** The server's CPU time over these phases, as a share of one core. */
  cpu_pct: number;
}

export interface WebhookSendFigures {
  with: PhaseFigures;
  without: PhaseFigures;
  deliveries_expected: number;
  deliveries_completed: number;
}

export interface WebhookSendOptions {
  url: string;
  senders: BenchUser[];
  channelId: number;
  botName: string;
  /** Someone mentioned instead of the bot, so both phases render the same kind of message. */
  personName: string;
  endpoint: SlowEndpoint;
  ratePerSec: number;
  /** Seconds per phase; phases run without, with, with, without, ... (rounds pairs). */
  phaseSec: number;
  rounds: number;
  /** The server's process, whose CPU time each phase reports. */
  serverPid: number;
  log: (line: string) => void;
}

const basic = (u: BenchUser) => `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

/** Waits until the endpoint has answered `count` deliveries, or `timeoutMs` passed. */
async function drain(endpoint: SlowEndpoint, count: number, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while ((await endpoint.answered()) < count && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function measureWebhookSends(options: WebhookSendOptions): Promise<WebhookSendFigures> {
  const { endpoint } = options;
  const requestsMentioning = (name: string) =>
    options.senders.map((sender, i) => ({
      headers: { authorization: basic(sender), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        type: "stream",
        to: String(options.channelId),
        topic: `webhook bench ${i % 5}`,
        content: `@**${name}** what is the weather like today?`,
      }).toString(),
    }));
  const phase = async (mentionBot: boolean, durationSec: number) => {
    const run = await runJson<{
      latencies_ms: number[];
      sent: number;
      non2xx: number;
      errors: number;
      error_codes: string[];
    }>("open-loop.js", {
      url: `${options.url}/api/v1/messages`,
      requests: requestsMentioning(mentionBot ? options.botName : options.personName),
      ratePerSec: options.ratePerSec,
      durationSec,
    });
    if (run.non2xx > 0 || run.errors > 0)
      throw new Error(
        `webhook sends: ${run.non2xx} non-2xx, ${run.errors} errors (${run.error_codes.join(", ")})`,
      );
    return run;
  };

  // Warm-up (discarded): caches, connections and the JIT, with both kinds of message.
  await phase(false, 2);
  await phase(true, 2);
  let expected = Math.round(options.ratePerSec * 2);
  await drain(endpoint, expected, 30_000);

  const latencies = { with: [] as number[], without: [] as number[] };
  const cpuSec = { with: 0, without: 0 };
  const order: boolean[] = [];
  for (let r = 0; r < options.rounds; r++) order.push(...(r % 2 === 0 ? [false, true] : [true, false]));
  for (const mentionBot of order) {
    const cpuBefore = await cpuSeconds(options.serverPid);
    const run = await phase(mentionBot, options.phaseSec);
    const cpuUsed = (await cpuSeconds(options.serverPid)) - cpuBefore;
    cpuSec[mentionBot ? "with" : "without"] += cpuUsed;
    const cpuPct = (100 * cpuUsed) / options.phaseSec;
    (mentionBot ? latencies.with : latencies.without).push(...run.latencies_ms);
    if (mentionBot) {
      expected += run.sent;
      // Deliveries still under way would load the next phase without webhooks.
      await drain(endpoint, expected, 30_000);
    }
    options.log(
      `    ${mentionBot ? "with" : "without"} webhook: p50 ${percentile(run.latencies_ms, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(run.latencies_ms, 99).toFixed(1)} ms, server CPU ${cpuPct.toFixed(0)} % of a core`,
    );
  }
  await drain(endpoint, expected, 30_000);
  const figures = (values: number[], cpu: number): PhaseFigures => ({
    p50_ms: percentile(values, 50),
    p99_ms: percentile(values, 99),
    sent: values.length,
    cpu_pct: (100 * cpu) / (options.phaseSec * options.rounds),
  });
  return {
    with: figures(latencies.with, cpuSec.with),
    without: figures(latencies.without, cpuSec.without),
    deliveries_expected: expected,
    deliveries_completed: await endpoint.answered(),
  };
}
