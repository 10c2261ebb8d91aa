import { onPostgres } from "../helpers/postgres.js";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect } from "chai";
import { expectError } from "../helpers/client.js";
import { templateDatabase } from "../helpers/setup.js";

const HERE = dirname(fileURLToPath(import.meta.url));

const MIB = 1024 * 1024;

/**
 * A multipart body of one file of `size` bytes, made chunk by chunk as it is sent (never
 * whole in memory), as a client streaming a large file from disk would.
 */
function streamedMultipart(size: number): { body: ReadableStream<Uint8Array>; contentType: string } {
  const boundary = "----chatdtestboundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(MIB, 0x61);
  let sent = 0;
  let state: "head" | "file" | "done" = "head";
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state === "head") {
        controller.enqueue(head);
        state = "file";
      } else if (state === "file") {
        const n = Math.min(MIB, size - sent);
        controller.enqueue(chunk.subarray(0, n));
        sent += n;
        if (sent >= size) {
          controller.enqueue(tail);
          state = "done";
        }
      } else controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A field of /proc/<pid>/status, in MiB (Linux). */
function procStatusMib(pid: number, field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no ${field}`);
  return Number(match[1]) / 1024;
}

/**
 * The test server in a child process, so its memory is measured alone (the client's
 * buffers and this process's garbage do not count): prints its URL and a user's key.
 */
async function startServerProcess(
  dataDir: string,
): Promise<{ child: ChildProcess; url: string; auth: string }> {
  const serverModule = pathToFileURL(join(HERE, "..", "helpers", "server.js")).href;
  const script = `
    const { startTestServer } = await import(${JSON.stringify(serverModule)});
    const server = await startTestServer({ max_file_upload_size_mib: 25 }, { dataDir: ${JSON.stringify(dataDir)}, keepDataDir: true });
    const realm = await server.factory.realm({ hamlet: 400 });
    const { email, apiKey } = realm.users.hamlet;
    console.log(JSON.stringify({ url: server.url, auth: Buffer.from(email + ":" + apiKey).toString("base64") }));
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.on("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
  const { url, auth } = JSON.parse(line) as { url: string; auth: string };
  return { child, url, auth: `Basic ${auth}` };
}

describe("uploads stream to disk", function () {
  let dataDir: string;
  let server: { child: ChildProcess; url: string; auth: string };

  before(async function () {
    this.timeout(60_000);
    dataDir = mkdtempSync(join(tmpdir(), "chatd-upload-"));
    // On PostgreSQL the server process gets its database from startTestServer instead.
    if (!onPostgres()) copyFileSync(templateDatabase(), join(dataDir, "chatd.sqlite3"));
    server = await startServerProcess(dataDir);
  });
  after(function () {
    server.child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (body: ReadableStream<Uint8Array>, contentType: string) =>
    fetch(`${server.url}/api/v1/user_uploads`, {
      method: "POST",
      headers: { authorization: server.auth, "content-type": contentType },
      body,
      duplex: "half",
    });

  /** The server's peak memory growth (MiB) while it refuses a body of `size` bytes with a 413. */
  async function peakGrowthRefusing(size: number): Promise<number> {
    const pid = server.child.pid!;
    // Reset the peak (VmHWM) to the current size: what follows is measured alone.
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const baseline = procStatusMib(pid, "VmRSS");
    const { body, contentType } = streamedMultipart(size);
    const res = await post(body, contentType);
    expectError(
      { status: res.status, headers: res.headers, body: await res.json() },
      413,
      "File is larger than this server's configured maximum upload size (25 MiB).",
      "PAYLOAD_TOO_LARGE",
    );
    return procStatusMib(pid, "VmHWM") - baseline;
  }

  it("refuses a 200 MB upload against a 25 MB limit; the server's memory does not grow with the body", async function () {
    this.timeout(120_000);
    // Warm up: the parser and type sniffing are loaded on first use.
    const warm = streamedMultipart(1024);
    expect((await post(warm.body, warm.contentType)).status).to.equal(200);
    const small = await peakGrowthRefusing(30 * MIB);
    const large = await peakGrowthRefusing(200 * MIB);
    // Measured: about 27 MiB for 26, 200 and 400 MB bodies alike (garbage V8 collects
    // lazily while 25 MiB pass through to disk), so the 170 MB more are never held.
    expect(
      large - small,
      `peak growth ${small.toFixed(1)} MiB for 30 MB, ${large.toFixed(1)} MiB for 200 MB`,
    ).to.be.below(10);
    expect(large, `peak growth ${large.toFixed(1)} MiB`).to.be.below(48);
    expect(readdirSync(join(dataDir, "uploads", "tmp"))).to.deep.equal([]);
  });
});
