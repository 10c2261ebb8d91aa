import { readdirSync, statSync } from "node:fs";
import { request, type ClientRequest } from "node:http";
import { join } from "node:path";
import sharp from "sharp";

/**
 * Hostile requests a server may be serving when it is told to stop (test/cli and the fault
 * pass's restarts): bodies that stop mid-way, multipart bodies of thousands of file parts,
 * and decompression-bomb images, each seconds of image work.
 */

const BOUNDARY = "hostileboundary";
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

const fileHead = (name: string, type: string) =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.png"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
const END = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

/** A PNG of about 88 million pixels (just under Zulip's bomb limit) in a few hundred KB. */
export function bombPng(): Promise<Buffer> {
  return sharp({ create: { width: 9400, height: 9400, channels: 3, background: "#000" } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** A multipart body of one image file. */
export const imageBody = (bytes: Buffer): Buffer =>
  Buffer.concat([fileHead("file", "image/png"), bytes, END]);

/** The reproduction: thousands of tiny file parts, far past the 10-file limit. */
export function manyFilePartsBody(count: number): Buffer {
  const parts = Array.from(
    { length: count },
    (_, i) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f${i}"; filename="a${i}"\r\n\r\nvvvv\r\n`,
  );
  return Buffer.from(`${parts.join("")}--${BOUNDARY}--\r\n`);
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** POSTs a multipart body; an answer, or null when the connection was cut (the server stopped). */
export async function postMultipart(
  baseUrl: string,
  path: string,
  authorization: string,
  body: Buffer,
): Promise<Answer | null> {
  try {
    const res = await fetch(`${baseUrl}/api/v1${path}`, {
      method: "POST",
      headers: { authorization, "content-type": CONTENT_TYPE },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}

/**
 * Requests left hanging mid-body: `uploads` with half an image sent, `forms` (a message
 * send) with part of a form. They wait for the server to cut them; `destroy` ends them.
 */
export function hangingBodies(
  baseUrl: string,
  authorization: string,
  counts: { uploads: number; forms: number },
): { destroy(): void } {
  const requests: ClientRequest[] = [];
  const open = (path: string, contentType: string, length: number, first: Buffer) => {
    const req = request(`${baseUrl}/api/v1${path}`, {
      method: "POST",
      headers: { authorization, "content-type": contentType, "content-length": String(length) },
    });
    req.on("error", () => undefined); // cut by the stopping server
    req.on("response", (res) => res.resume());
    req.write(first);
    requests.push(req);
  };
  for (let i = 0; i < counts.uploads; i++) {
    open(
      "/user_uploads",
      CONTENT_TYPE,
      1_000_000,
      Buffer.concat([fileHead("slow", "image/png"), Buffer.alloc(300_000, 7)]),
    );
  }
  for (let i = 0; i < counts.forms; i++) {
    open(
      "/messages",
      "application/x-www-form-urlencoded",
      100_000,
      Buffer.from("type=stream&to=general&content="),
    );
  }
  return {
    destroy() {
      for (const req of requests) req.destroy();
    },
  };
}

export interface HostileUploads {
  /** Ends the hanging bodies and waits for every answer: how many were 5xx. */
  finish(): Promise<number>;
}

/**
 * Puts hostile uploads in flight and resolves once the server holds them all: bodies
 * hanging mid-way (uploads and a form), floods of file parts, and `bombs` avatar uploads of
 * `bomb` received whole (their temporary files in `tempDir` complete), waiting for image work.
 */
export async function hostileUploadsInFlight(
  baseUrl: string,
  authorization: string,
  tempDir: string,
  bomb: Buffer,
  bombs = 16,
): Promise<HostileUploads> {
  const hanging = hangingBodies(baseUrl, authorization, { uploads: 3, forms: 3 });
  const answers = [
    ...Array.from({ length: 4 }, () =>
      postMultipart(baseUrl, "/user_uploads", authorization, manyFilePartsBody(3000)),
    ),
    ...Array.from({ length: bombs }, () =>
      postMultipart(baseUrl, "/users/me/avatar", authorization, imageBody(bomb)),
    ),
  ];
  // Names of the bombs' files seen complete (one may be done and removed before the last arrives).
  const complete = new Set<string>();
  const received = () => {
    for (const name of readdirSync(tempDir)) {
      const size = statSync(join(tempDir, name), { throwIfNoEntry: false })?.size;
      if (size === bomb.length) complete.add(name);
    }
    return complete.size;
  };
  for (let i = 0; i < 600 && received() < bombs; i++) await new Promise((r) => setTimeout(r, 25));
  if (received() < bombs) throw new Error(`only ${received()} of ${bombs} image bombs received`);
  return {
    async finish() {
      hanging.destroy();
      const settled = await Promise.all(answers);
      return settled.filter((answer) => answer !== null && answer.status >= 500).length;
    },
  };
}
