// `node dist/test/bench/login-flood.js [--bin path/to/bin/chatd]`: the login-flood isolation
// figure, also the flood part of `npm run test:faults` (test/faults/main.ts). A member's
// GET /messages and GET /users/me p50, idle and while 32 clients send wrong passwords to
// POST /fetch_api_key for 8 s (in four phases between idle ones), each as fast as it is
// answered, waiting `retry-after` when refused as Zulip clients do. Rate limits are off (a flood from many addresses looks like
// that), so only where the server hashes passwords keeps the flood from its other requests.
// The server runs pinned to one core (its hashing processes with it) when taskset exists.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CHATD_BIN, SERVER_CORE, cpuSeconds, spawnNode, stopProcess, waitForHttp } from "./processes.js";
import { median, round } from "./stats.js";
import { freePort } from "../helpers/ports.js";
import { childPids } from "../helpers/workers.js";

export interface LoginFloodOptions {
  readonly bin?: string;
  /** The server's environment beside rate_limiting off (e.g. CHATD_DB_DRIVER). */
  readonly env?: NodeJS.ProcessEnv;
  readonly flooders?: number;
  /** In all, over FLOOD_PHASES phases. */
  readonly floodSecs?: number;
  readonly idlePhaseSecs?: number;
}

const FLOOD_PHASES = 4;

export interface LoginFloodFigures {
  readonly idle_p50_ms: { messages: number; me: number };
  readonly flood_p50_ms: { messages: number; me: number };
  /** Flood p50 over idle p50 of the member's GET /messages. */
  readonly messages_ratio: number;
  readonly flood_samples: number;
  /** CPU seconds over the flooded phases: the server process's own, and its child processes'. */
  readonly flood_cpu_s: { server: number; children: number };
  readonly login_attempts_per_s: number;
  readonly login_statuses: Record<string, number>;
}

const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`;

export async function measureLoginFlood(options: LoginFloodOptions = {}): Promise<LoginFloodFigures> {
  const bin = options.bin ?? CHATD_BIN;
  const flooders = options.flooders ?? 32;
  const floodMs = (options.floodSecs ?? 8) * 1000;
  const idlePhaseMs = (options.idlePhaseSecs ?? 1) * 1000;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${url}/api/v1${path}`, init);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const timed = async (path: string, auth: string) => {
    const started = performance.now();
    await api(path, { headers: { authorization: auth } });
    return performance.now() - started;
  };

  const dataDir = mkdtempSync(join(tmpdir(), "chatd-flood-"));
  const env = { ...options.env, CHATD_LOG_LEVEL: "warn", CHATD_RATE_LIMITING: "false" };
  const init = spawnSync(
    process.execPath,
    [bin, "--data-dir", dataDir, "init", "--no-input", "--json", "--realm-name", "Flood"].concat([
      "--owner-email",
      "owner@flood.test",
      "--owner-name",
      "Owner",
      "--owner-password",
      "right horse",
    ]),
    { encoding: "utf8", env: { ...process.env, ...env } },
  );
  if (init.status !== 0) throw new Error(`chatd init failed: ${init.stderr}`);
  const owner = JSON.parse(init.stdout) as { email: string; api_key: string };
  const server = await spawnNode([bin, "--data-dir", dataDir, "serve", "--port", String(port)], {
    core: SERVER_CORE,
    env,
    stdio: "ignore",
  });
  try {
    await waitForHttp(`${url}/api/v1/server_settings`, server);
    const member = { email: "member@flood.test", password: "member horse" };
    await api("/users", {
      method: "POST",
      headers: { authorization: basic(owner.email, owner.api_key) },
      body: new URLSearchParams({ ...member, full_name: "Member" }),
    });
    const login = await api("/fetch_api_key", {
      method: "POST",
      body: new URLSearchParams({ username: member.email, password: member.password }),
    });
    const auth = basic(member.email, login.api_key as string);
    for (let i = 0; i < 100; i++) {
      await api("/messages", {
        method: "POST",
        headers: { authorization: auth },
        body: new URLSearchParams({ type: "stream", to: "general", topic: "flood", content: `note ${i}` }),
      });
    }
    const messages = "/messages?anchor=newest&num_before=50&num_after=0";
    type Samples = { messages: number[]; me: number[] };
    const sample = async (into: Samples, ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        into.messages.push(await timed(messages, auth));
        into.me.push(await timed("/users/me", auth));
      }
    };

    let running = false;
    const outcomes = new Map<string, number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    const flooder = async () => {
      while (running) {
        try {
          const res = await fetch(`${url}/api/v1/fetch_api_key`, {
            method: "POST",
            body: new URLSearchParams({ username: member.email, password: "wrong horse" }),
          });
          const body = (await res.json()) as { "retry-after"?: number };
          count(String(res.status));
          // As Zulip clients do: a refused login waits as long as the server asks.
          if (res.status === 429) await new Promise((r) => setTimeout(r, (body["retry-after"] ?? 1) * 1000));
        } catch {
          count("transport error");
        }
      }
    };
    // Idle and flooded phases alternate (idle first and last): on a shared machine the load
    // of other work drifts, and each flooded phase is compared with idle ones on both sides.
    const idle: Samples = { messages: [], me: [] };
    const loaded: Samples = { messages: [], me: [] };
    let floodedMs = 0;
    const cpu = { server: 0, children: 0 };
    const pid = server.pid!;
    /** CPU seconds of the server's children so far (they only hash, and only when flooded). */
    const childCpu = async () => {
      let total = 0;
      for (const child of childPids(pid)) total += await cpuSeconds(child).catch(() => 0);
      return total;
    };
    for (let phase = 0; phase < FLOOD_PHASES; phase++) {
      await sample(idle, idlePhaseMs);
      running = true;
      const started = performance.now();
      const serverCpuBefore = await cpuSeconds(pid);
      const flood = Array.from({ length: flooders }, flooder);
      // The flood's first answers (hashes start queueing) before measuring under it.
      await new Promise((r) => setTimeout(r, 300));
      await sample(loaded, floodMs / FLOOD_PHASES - 300);
      running = false;
      await Promise.all(flood);
      floodedMs += performance.now() - started;
      cpu.server += (await cpuSeconds(pid)) - serverCpuBefore;
    }
    cpu.children = await childCpu();
    await sample(idle, idlePhaseMs);
    const seconds = floodedMs / 1000;
    const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
    const p50 = (samples: { messages: number[]; me: number[] }) => ({
      messages: round(median(samples.messages), 2),
      me: round(median(samples.me), 2),
    });
    const idleP50 = p50(idle);
    const floodP50 = p50(loaded);
    return {
      idle_p50_ms: idleP50,
      flood_p50_ms: floodP50,
      messages_ratio: round(floodP50.messages / idleP50.messages, 2),
      flood_samples: loaded.messages.length,
      flood_cpu_s: { server: round(cpu.server, 2), children: round(cpu.children, 2) },
      login_attempts_per_s: round(total / seconds, 1),
      login_statuses: Object.fromEntries(outcomes),
    };
  } finally {
    await stopProcess(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const bin = argv.includes("--bin") ? argv[argv.indexOf("--bin") + 1]! : CHATD_BIN;
  const figures = await measureLoginFlood({ bin });
  process.stdout.write(`${JSON.stringify({ bin, ...figures }, null, 2)}\n`);
}
