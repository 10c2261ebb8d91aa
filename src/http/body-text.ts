import type { IncomingMessage } from "node:http";
import type { Readable, Transform } from "node:stream";
import { createBrotliDecompress, createUnzip } from "node:zlib";
import { JsonableError, badRequest } from "../errors.js";
import { drainRequest } from "./reclaim.js";

/**
 * Reads a whole request body as UTF-8 text, as koa-body's co-body did (raw-body over
 * inflation): gzip, deflate and br bodies are inflated, the limit counts inflated bytes,
 * a Content-Length over the limit is refused before anything is read, a leading byte
 * order mark is dropped, and the body's charset parameter is ignored (always UTF-8).
 */

/** Why a body could not be read; `status` is what it means for the client (413, 415, 400). */
export class BodyReadError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

export function readBodyText(req: IncomingMessage, limitBytes: number): Promise<string> {
  const encoding = req.headers["content-encoding"] || "identity";
  const declared = req.headers["content-length"];
  // As raw-body: the declared length binds only a body sent as it is.
  const length = declared && encoding === "identity" ? Math.trunc(Number(declared)) || 0 : null;
  let inflater: Transform | null = null;
  if (encoding === "gzip" || encoding === "deflate") inflater = createUnzip();
  else if (encoding === "br") inflater = createBrotliDecompress();
  else if (encoding !== "identity")
    return Promise.reject(new BodyReadError(415, "unsupported content encoding"));
  if (length !== null && length > limitBytes)
    return Promise.reject(new BodyReadError(413, "request body over the limit"));
  if (!req.readable) return Promise.reject(new BodyReadError(400, "request body already read"));
  return collect(req, inflater, length, limitBytes);
}

/**
 * readBodyText for an endpoint that reads its own body: a body it cannot read is refused
 * with the API's error (413 PAYLOAD_TOO_LARGE over the limit, else 400), and the unread
 * rest is drained unbuffered, so the answer reaches the client on a connection it can reuse.
 */
export async function readBodyTextOrRefuse(req: IncomingMessage, limitBytes: number): Promise<string> {
  try {
    return await readBodyText(req, limitBytes);
  } catch (err) {
    drainRequest(req);
    throw bodyRefusal((err as BodyReadError).status);
  }
}

/** The API's answer to a body that could not be read, by the reader's HTTP status. */
export function bodyRefusal(status: number | undefined): JsonableError {
  if (status === 413) return new JsonableError("Request body too large", "PAYLOAD_TOO_LARGE", 413);
  if (status === 415) return badRequest("Unsupported request body type");
  return badRequest("Malformed request body");
}

function collect(
  req: IncomingMessage,
  inflater: Transform | null,
  length: number | null,
  limitBytes: number,
): Promise<string> {
  const source: Readable = inflater ? req.pipe(inflater) : req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (err: BodyReadError | null, text?: string) => {
      source.off("data", onData);
      source.off("end", onEnd);
      source.off("error", onError);
      req.off("close", onClose);
      if (err) {
        // The caller drains what is left of the request; an inflater in between is dropped.
        if (inflater) {
          req.unpipe(inflater);
          inflater.destroy();
        } else req.pause();
        reject(err);
      } else resolve(text!);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) finish(new BodyReadError(413, "request body over the limit"));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (length !== null && received !== length) {
        finish(new BodyReadError(400, "request size did not match content length"));
        return;
      }
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString("utf8");
      finish(null, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    };
    const onError = () => finish(new BodyReadError(400, "request body unreadable"));
    // A client gone before the end: no "end" comes.
    const onClose = () => {
      if (!req.complete) finish(new BodyReadError(400, "request aborted"));
    };
    source.on("data", onData);
    source.on("end", onEnd);
    source.on("error", onError);
    req.on("close", onClose);
  });
}
