// A minimal HTTP/1.1 keep-alive client for timing many parked responses at once. A response's
// receipt time is taken when its last byte arrives; the load generator does no more per
// response than find where it ends (no response objects, no decoding: the body is decoded
// afterwards, see decode). With Node's http client each receipt cost the generator about as
// much as the bare long-poll server spends answering it, so the baseline measured the client;
// this way the figures measure the servers. GET requests only.
import { connect, type Socket } from "node:net";

export interface RawReceipt {
  /** performance.now() when the response's last byte arrived. */
  at: number;
  /** The whole response, head and body, as received. */
  raw: Buffer;
}

const HEAD_END = Buffer.from("\r\n\r\n");
const LAST_CHUNK = Buffer.from("0\r\n\r\n");

/** The length of the complete response at the start of `data`, or -1 while it is incomplete. */
function responseLength(data: Buffer): number {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd < 0) return -1;
  const head = data.toString("latin1", 0, headEnd).toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) {
    const total = headEnd + 4 + Number(length[1]);
    return data.length >= total ? total : -1;
  }
  if (head.includes("transfer-encoding: chunked")) {
    const end = data.indexOf(LAST_CHUNK, headEnd + 4);
    return end < 0 ? -1 : end + LAST_CHUNK.length;
  }
  throw new Error("a response without a length (the bench expects keep-alive responses)");
}

/** One keep-alive connection, one request at a time. */
export class RawConnection {
  private readonly socket: Socket;
  private received: Buffer[] = [];
  private waiting: { resolve: (r: RawReceipt) => void; reject: (err: Error) => void } | null = null;
  private failed: Error | null = null;
  /** Resolves once connected (many connections opened at once overflow the listen backlog). */
  readonly ready: Promise<void>;

  constructor(
    private readonly host: string,
    port: number,
  ) {
    this.socket = connect(port, host);
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once("connect", () => resolve());
      this.socket.once("error", reject);
    });
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", (err) => this.fail(err));
    this.socket.on("close", () => this.fail(new Error("connection closed")));
  }

  get(path: string, headers: Record<string, string> = {}): Promise<RawReceipt> {
    if (this.failed) return Promise.reject(this.failed);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    this.socket.write(`GET ${path} HTTP/1.1\r\nhost: ${this.host}\r\n${lines.join("")}\r\n`);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const at = performance.now();
    this.received.push(chunk);
    const data = this.received.length === 1 ? chunk : Buffer.concat(this.received);
    const length = responseLength(data);
    if (length < 0) {
      this.received = [data];
      return;
    }
    this.received = length < data.length ? [data.subarray(length)] : [];
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve({ at, raw: data.subarray(0, length) });
  }

  private fail(err: Error): void {
    this.failed ??= err;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(err);
  }
}

/** A received response's status and body text (chunked bodies joined). */
export function decode(raw: Buffer): { status: number; text: string } {
  const headEnd = raw.indexOf(HEAD_END);
  const head = raw.toString("latin1", 0, headEnd);
  const status = Number(/^HTTP\/1\.\d (\d{3})/.exec(head)?.[1] ?? 0);
  let body = raw.subarray(headEnd + 4);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const parts: Buffer[] = [];
    for (let at = 0; ;) {
      const lineEnd = body.indexOf("\r\n", at);
      const size = parseInt(body.toString("latin1", at, lineEnd), 16);
      if (!size) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status, text: body.toString("utf8") };
}
