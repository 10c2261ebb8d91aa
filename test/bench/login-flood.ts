// `node dist/test/bench/login-flood.js [--bin path/to/bin/chatd]`: the login-flood isolation
// figure. A member's GET /messages and GET /users/me p50, idle and while 32 clients send
// wrong passwords to POST /fetch_api_key as fast as they are answered, waiting `retry-after`
// when refused as Zulip clients do (rate limits off, so only the bound on concurrent password
// hashes protects the database's share of the thread pool).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { CHATD_BIN, spawnNode, stopProcess, waitForHttp } from "./processes.js";
import { median, round } from "./stats.js";

const argv = process.argv.slice(2);
const BIN = argv.includes("--bin") ? argv[argv.indexOf("--bin") + 1]! : CHATD_BIN;
const FLOODERS = 32;
const SAMPLES = 200;
const PORT = 9700 + Math.floor(Math.random() * 200);
const url = `http://127.0.0.1:${PORT}`;

async function timed(path: string, auth: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/v1${path}`, { headers: { authorization: auth } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
  return performance.now() - started;
}

async function p50(path: string, auth: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) times.push(await timed(path, auth));
  return round(median(times), 2);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "chatd-flood-"));
  const init = spawnSync(
    process.execPath,
    [BIN, "--data-dir", dataDir, "init", "--no-input", "--json", "--realm-name", "Flood"].concat([
      "--owner-email",
      "owner@flood.test",
      "--owner-name",
      "Owner",
      "--owner-password",
      "right horse",
    ]),
    { encoding: "utf8" },
  );
  const owner = JSON.parse(init.stdout) as { email: string; api_key: string };
  const auth = `Basic ${Buffer.from(`${owner.email}:${owner.api_key}`).toString("base64")}`;
  const server = await spawnNode([BIN, "--data-dir", dataDir, "serve", "--port", String(PORT)], {
    core: 0,
    env: { CHATD_LOG_LEVEL: "warn", CHATD_RATE_LIMITING: "false" },
    stdio: "ignore",
  });
  try {
    await waitForHttp(`${url}/api/v1/server_settings`, server);
    for (let i = 0; i < 100; i++) {
      await fetch(`${url}/api/v1/messages`, {
        method: "POST",
        headers: { authorization: auth },
        body: new URLSearchParams({
          type: "direct",
          to: JSON.stringify([owner.email]),
          content: `note ${i}`,
        }),
      });
    }
    const messages = "/messages?anchor=newest&num_before=50&num_after=0";
    const idle = { messages: await p50(messages, auth), me: await p50("/users/me", auth) };

    let running = true;
    const outcomes = new Map<number, number>();
    const flooder = async () => {
      while (running) {
        const res = await fetch(`${url}/api/v1/fetch_api_key`, {
          method: "POST",
          body: new URLSearchParams({ username: owner.email, password: "wrong horse" }),
        });
        const body = (await res.json()) as { "retry-after"?: number };
        outcomes.set(res.status, (outcomes.get(res.status) ?? 0) + 1);
        // As Zulip clients do: a refused login waits as long as the server asks.
        if (res.status === 429) await new Promise((r) => setTimeout(r, (body["retry-after"] ?? 1) * 1000));
      }
    };
    const started = performance.now();
    const flood = Array.from({ length: FLOODERS }, flooder);
    await new Promise((r) => setTimeout(r, 500));
    const loaded = { messages: await p50(messages, auth), me: await p50("/users/me", auth) };
    running = false;
    await Promise.all(flood);
    const seconds = (performance.now() - started) / 1000;
    const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(
      `${JSON.stringify(
        {
          bin: BIN,
          idle_p50_ms: idle,
          flood_p50_ms: loaded,
          messages_ratio: round(loaded.messages / idle.messages, 2),
          login_attempts_per_s: round(total / seconds, 1),
          login_statuses: Object.fromEntries(outcomes),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await stopProcess(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
