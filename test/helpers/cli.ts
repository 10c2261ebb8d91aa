import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cliDatabaseEnv } from "./postgres.js";
import { freePort } from "./ports.js";

/** Running the built `chatd` command as a separate process, as an operator would. */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const BIN = join(ROOT, "bin", "chatd");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ChatdOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as another user (tests run as root, to whom every directory is writable). */
  uid?: number;
  gid?: number;
  /** Standard input (chatdSync only); none by default. */
  input?: string;
}

const spawnOptions = (options: ChatdOptions, args: readonly string[]): SpawnOptions => ({
  env: {
    ...process.env,
    CHATD_LOG_LEVEL: "warn",
    ...cliDatabaseEnv(args, options.env, options.cwd),
    ...options.env,
  },
  cwd: options.cwd,
  uid: options.uid,
  gid: options.gid,
  stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
});

export function chatdSync(args: string[], options: ChatdOptions = {}): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    ...spawnOptions(options, args),
    encoding: "utf8",
    input: options.input,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same, without blocking the test process (which may be driving a server meanwhile). */
export function chatd(args: string[], options: ChatdOptions = {}): Promise<CliResult> {
  return new Promise((resolveResult, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], spawnOptions(options, args));
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolveResult({ code, stdout, stderr }));
  });
}

/** `chatd --data-dir <dataDir> …`: blocking (as chatdSync), or not with `.async` (as chatd). */
export function cliIn(dataDir: string) {
  const withDir = (args: readonly string[]) => ["--data-dir", dataDir, ...args];
  const run = (args: readonly string[], options: ChatdOptions = {}) => chatdSync(withDir(args), options);
  return Object.assign(run, {
    async: (args: readonly string[], options: ChatdOptions = {}) => chatd(withDir(args), options),
  });
}

export { freePort };

/** The exit code (null when a signal ended it), also for a child that has already exited. */
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((r) =>
    child.exitCode !== null || child.signalCode !== null
      ? r(child.exitCode)
      : child.once("exit", (code) => r(code)),
  );

/** Resolves with the exit code, or null if the process is still running after `ms`. */
export const exitedWithin = (child: ChildProcess, ms: number) =>
  Promise.race([exited(child), new Promise<null>((r) => setTimeout(() => r(null), ms))]);

/** `chatd serve` on `port`, output ignored; see waitForServer. */
export function spawnServe(dataDir: string, port: number, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [BIN, "--data-dir", dataDir, "serve", "--port", String(port)], {
    env: { ...process.env, CHATD_LOG_LEVEL: "warn", ...cliDatabaseEnv(["--data-dir", dataDir], env), ...env },
    stdio: "ignore",
  });
}

/** Until the server at `url` answers (10 s at most); fails if its process exits first. */
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

export interface InitResult {
  realm_url: string;
  email: string;
  user_id: number;
  api_key: string;
}

export const OWNER = { email: "desdemona@zulip.test", password: "correct horse" };

/** `chatd init` with the owner above; fails the test if it fails. */
export function initDataDir(dataDir: string, extra: string[] = []): InitResult {
  const res = chatdSync([
    "--data-dir",
    dataDir,
    "init",
    "--no-input",
    "--json",
    "--realm-name",
    "Elsinore",
    "--owner-email",
    OWNER.email,
    "--owner-name",
    "Desdemona",
    "--owner-password",
    OWNER.password,
    ...extra,
  ]);
  if (res.code !== 0) throw new Error(`chatd init failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as InitResult;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the server wrote to stderr so far (its log). */
  log(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `chatd serve` on a free port (or the given one, to restart where clients wait), once it answers. */
export async function startServerProcess(
  dataDir: string,
  options: { env?: NodeJS.ProcessEnv; args?: string[]; port?: number; startTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(
    process.execPath,
    [BIN, "--data-dir", dataDir, "serve", "--port", String(port), ...(options.args ?? [])],
    {
      env: {
        ...process.env,
        CHATD_LOG_LEVEL: "warn",
        CHATD_RATE_LIMITING: "false",
        ...cliDatabaseEnv(["--data-dir", dataDir], options.env),
        ...options.env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let log = "";
  child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    child,
    url,
    log: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited(child);
    },
  };
  // One try per 100 ms at least (longer when the machine is slow to answer).
  for (let i = 0; i < (options.startTimeoutMs ?? 10_000) / 100; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${log}`);
    try {
      if ((await fetch(`${url}/api/v1/server_settings`)).ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`server did not start: ${log.slice(-500)}`);
}

/** The Authorization header of HTTP Basic authentication with an API key. */
export const basicAuth = (email: string, apiKey: string) => ({
  authorization: `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`,
});
