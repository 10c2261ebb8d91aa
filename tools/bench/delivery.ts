// Event delivery against the bare long-poll server (baselines/longpoll-server.ts), like for
// like: the same client (longpoll-client.ts, on the load core, handling every receipt the
// same way), the same number of parked polls, bodies of the same size (the baseline pads its
// event to the size of chatd's event responses), both servers on the server core and both
// running throughout, each run after a discarded warm-up firing. Each round measures both back
// to back, in alternating order; the figures are medians over rounds, the ratio the median of
// the rounds' ratios (with their spread). chatd's figure runs from the send request, so it
// includes the send's own work (its commit among it) that the bare server does not do, as a
// user's delivery does. The client's CPU time per firing is reported: were it near the
// baseline's latency, the baseline would be measuring the client (see raw-http.ts).
import { join } from "node:path";
import { freePort } from "../../test/helpers/ports.js";
import { BENCH_DIR, runJson, SERVER_CORE, spawnNode, stopProcess, waitForHttp } from "./processes.js";
import { median, round } from "./stats.js";

interface Credentials {
  email: string;
  apiKey: string;
}

export interface DeliveryOptions {
  /** chatd's base URL. */
  url: string;
  /** Registered chatd queues (event type message), one parked poll each. */
  queues: Array<{ auth: Credentials; queueId: string; lastEventId?: number }>;
  /** The chatd request whose event every queue receives. */
  trigger: { path: string; auth: Credentials; params: Record<string, string> };
  rounds: number;
  /** Measured firings per run (each run starts with one more, discarded). */
  firings: number;
  log: (line: string) => void;
}

interface Run {
  p50_ms: number;
  p99_ms: number;
  lost: number;
  samples: number;
  bytes: number;
  trigger_ms: number;
  client_cpu_ms: number;
  last_event_ids?: Record<string, number>;
}

export interface DeliveryFigures {
  /** Medians over rounds. */
  chatd: { p50_ms: number; p99_ms: number; trigger_ms: number; client_cpu_ms: number };
  baseline: { p50_ms: number; p99_ms: number; client_cpu_ms: number };
  /** chatd's p99 / the baseline's, per round. */
  ratios: number[];
  /** Events lost over all rounds: chatd's, and the baseline's (a broken method if not 0). */
  lost: number;
  baselineLost: number;
  payloadBytes: number;
}

export async function measureDelivery(options: DeliveryOptions): Promise<DeliveryFigures> {
  const port = await freePort();
  const bare = await spawnNode([join(BENCH_DIR, "baselines", "longpoll-server.js"), String(port)], {
    core: SERVER_CORE,
  });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/`, bare);
    const n = options.queues.length;
    let queues = options.queues;
    /** A run over chatd's queues; the next one starts after the events this one received. */
    const chatdRun = async (firings: number, warmup: number) => {
      const run = await runJson<Run>("longpoll-client.js", {
        mode: "chatd",
        base: options.url,
        n,
        rounds: firings,
        warmup,
        queues,
        trigger: options.trigger,
      });
      queues = queues.map((q) => ({ ...q, lastEventId: run.last_event_ids?.[q.queueId] ?? q.lastEventId }));
      return run;
    };
    // One firing first: the size of chatd's event responses, for the baseline to match.
    const probe = await chatdRun(1, 0);
    const payloadBytes = probe.bytes;
    const baselineRun = () =>
      runJson<Run>("longpoll-client.js", {
        mode: "baseline",
        base: `http://127.0.0.1:${port}`,
        n,
        rounds: options.firings,
        warmup: 1,
        payloadBytes,
      });
    const chatdRuns: Run[] = [];
    const baselineRuns: Run[] = [];
    for (let r = 0; r < options.rounds; r++) {
      if (r % 2 === 0) {
        chatdRuns.push(await chatdRun(options.firings, 1));
        baselineRuns.push(await baselineRun());
      } else {
        baselineRuns.push(await baselineRun());
        chatdRuns.push(await chatdRun(options.firings, 1));
      }
      options.log(
        `    round ${r + 1}: chatd p99 ${chatdRuns[r]!.p99_ms} ms, bare p99 ${baselineRuns[r]!.p99_ms} ms`,
      );
    }
    const mid = (runs: Run[], key: "p50_ms" | "p99_ms" | "trigger_ms" | "client_cpu_ms") =>
      round(median(runs.map((run) => run[key])));
    return {
      chatd: {
        p50_ms: mid(chatdRuns, "p50_ms"),
        p99_ms: mid(chatdRuns, "p99_ms"),
        trigger_ms: mid(chatdRuns, "trigger_ms"),
        client_cpu_ms: mid(chatdRuns, "client_cpu_ms"),
      },
      baseline: {
        p50_ms: mid(baselineRuns, "p50_ms"),
        p99_ms: mid(baselineRuns, "p99_ms"),
        client_cpu_ms: mid(baselineRuns, "client_cpu_ms"),
      },
      ratios: chatdRuns.map((run, r) => run.p99_ms / baselineRuns[r]!.p99_ms),
      lost: probe.lost + chatdRuns.reduce((sum, run) => sum + run.lost, 0),
      baselineLost: baselineRuns.reduce((sum, run) => sum + run.lost, 0),
      payloadBytes,
    };
  } finally {
    await stopProcess(bare);
  }
}
