import { exited } from "./cli.js";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cliDatabaseEnv } from "./postgres.js";

/** Running bin/chatd as a separate process, as an operator would. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const BIN = join(ROOT, "bin", "chatd");

export function runChatd(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    env: { ...process.env, CHATD_LOG_LEVEL: "warn", ...cliDatabaseEnv(args, env), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `chatd init` of a fresh data directory; the owner's credentials. */
export function initRealm(dataDir: string): { email: string; api_key: string } {
  const init = runChatd([
    "--data-dir",
    dataDir,
    "init",
    "--no-input",
    "--json",
    "--realm-name",
    "Elsinore",
    "--owner-email",
    "desdemona@zulip.test",
    "--owner-name",
    "Desdemona",
    "--owner-password",
    "correct horse",
  ]);
  if (init.code !== 0) throw new Error(`chatd init failed: ${init.stderr}`);
  return JSON.parse(init.stdout) as { email: string; api_key: string };
}

export function spawnServe(dataDir: string, port: number, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [BIN, "--data-dir", dataDir, "serve", "--port", String(port)], {
    env: { ...process.env, CHATD_LOG_LEVEL: "warn", ...cliDatabaseEnv(["--data-dir", dataDir], env), ...env },
    stdio: "ignore",
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });
}

export async function waitForServer(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/api/v1/server_settings`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("server did not start");
}

export { exited };

/** Resolves with the exit code, or null if the process is still running after `ms`. */
export const exitedWithin = (child: ChildProcess, ms: number) =>
  Promise.race([exited(child), new Promise<null>((r) => setTimeout(() => r(null), ms))]);
