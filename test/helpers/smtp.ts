import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import type { Config } from "../../src/config.js";

/** One message as the SMTP server received it, with its parts decoded. */
export interface ReceivedEmail {
  /** The envelope's recipients. */
  readonly to: string[];
  readonly raw: string;
  readonly headers: Map<string, string>;
  readonly subject: string;
  readonly from: string;
  readonly text: string;
  readonly html: string;
}

/**
 * A real SMTP server on 127.0.0.1 inside the test process, standing in for the operator's:
 * it keeps what chatd sends, or refuses every message with `refuseWith` (e.g.
 * "451 Try again later"), counting the attempts.
 */
export class TestSmtpServer {
  readonly received: ReceivedEmail[] = [];
  /** Attempts refused so far. */
  refused = 0;
  /** "<code> <text>": refuse each message with this answer; null: accept. */
  refuseWith: string | null = null;
  private server: SMTPServer | null = null;
  port = 0;

  async start(): Promise<number> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          if (this.refuseWith) {
            this.refused++;
            const [code, ...text] = this.refuseWith.split(" ");
            const err = Object.assign(new Error(text.join(" ")), { responseCode: Number(code) });
            return callback(err);
          }
          const to = session.envelope.rcptTo.map((r) => r.address);
          this.received.push(parseEmail(to, Buffer.concat(chunks).toString("utf8")));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this.port;
  }

  /** The settings that send chatd's email here. */
  config(): Partial<Config> {
    return { smtp_host: "127.0.0.1", smtp_port: this.port, smtp_security: "none" };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Splits a message into its headers (unfolded, names lower-cased) and body. */
function splitMessage(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, end).replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(end + 4) };
}

const decodeQuotedPrintable = (text: string) =>
  Buffer.from(
    text
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");

function decodeBody(headers: Map<string, string>, body: string): string {
  const encoding = (headers.get("content-transfer-encoding") ?? "").toLowerCase();
  if (encoding === "quoted-printable") return decodeQuotedPrintable(body);
  if (encoding === "base64") return Buffer.from(body, "base64").toString("utf8");
  return body;
}

/** RFC 2047 encoded words (a realm name or subject beyond ASCII). */
const decodeWords = (value: string) =>
  value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === "B"
      ? Buffer.from(text, "base64").toString("utf8")
      : decodeQuotedPrintable(text.replace(/_/g, " ")),
  );

/** Parses what nodemailer sends: text and HTML as multipart/alternative. */
export function parseEmail(to: string[], raw: string): ReceivedEmail {
  const { headers, body } = splitMessage(raw);
  let text = "";
  let html = "";
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get("content-type") ?? "")?.[1];
  const parts = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((part) => splitMessage(part.replace(/^\r\n/, "")))
    : [{ headers, body }];
  for (const part of parts) {
    const type = part.headers.get("content-type") ?? "";
    const decoded = decodeBody(part.headers, part.body.replace(/\r\n$/, ""));
    if (type.startsWith("text/plain")) text = decoded;
    if (type.startsWith("text/html")) html = decoded;
  }
  return {
    to,
    raw,
    headers,
    subject: decodeWords(headers.get("subject") ?? ""),
    from: decodeWords(headers.get("from") ?? ""),
    text: text.replace(/\r\n/g, "\n"),
    html: html.replace(/\r\n/g, "\n"),
  };
}
