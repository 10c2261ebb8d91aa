import type { Server } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Requests Node's HTTP parser refuses before the app sees them (a malformed request line,
 * headers over Node's 16 KiB, a client too slow to send them) get Zulip's error envelope
 * too, instead of Node's bare status line, and their connection is closed.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: Error & { code?: string }, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, msg] =
      err.code === "HPE_HEADER_OVERFLOW"
        ? [431, "Request Header Fields Too Large", "Request headers too large"]
        : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [408, "Request Timeout", "Request timed out"]
          : [400, "Bad Request", "Malformed HTTP request"];
    const body = JSON.stringify({ result: "error", msg, code: "BAD_REQUEST" });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
