import { request as httpRequest } from "node:http";
import type * as Https from "node:https";
import { createRequire } from "node:module";
import {
  guardedLookup,
  refusedWebhookUrl,
  RefusedWebhookTarget,
  type AllowedPrivateHosts,
} from "./webhook-targets.js";

/** What one outgoing webhook request came to (Zulip's do_rest_call outcomes). */
export type WebhookOutcome =
  | { kind: "response"; status: number; body: string }
  | { kind: "timeout" }
  | { kind: "connection-error" }
  | { kind: "refused" };

/** The most of an answer kept (a reply longer than this is no message anyway). */
const MAX_BODY_BYTES = 1 << 20;

export interface WebhookRequest {
  url: string;
  body: string;
  contentType: string;
  timeoutMs: number;
  allowed: AllowedPrivateHosts;
}

/** node:https, and TLS with it, loads with the first https delivery: an idle server never holds it. */
let https: typeof Https | null = null;
const loadHttps = () => (https ??= createRequire(import.meta.url)("node:https") as typeof Https);

/**
 * POSTs one payload. The SSRF guard checks an IP literal here and every resolved address
 * in the lookup, so the socket only ever connects to a checked address; redirects are not
 * followed (a 3xx is an answer like any other), so no redirect can lead elsewhere.
 */
export function postWebhook(req: WebhookRequest): Promise<WebhookOutcome> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return Promise.resolve({ kind: "refused" });
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || refusedWebhookUrl(url, req.allowed)) {
    return Promise.resolve({ kind: "refused" });
  }
  const send = url.protocol === "https:" ? loadHttps().request : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: WebhookOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = send(
      url,
      {
        method: "POST",
        lookup: guardedLookup(req.allowed),
        headers: {
          "Content-Type": req.contentType,
          "Content-Length": Buffer.byteLength(req.body),
          "User-Agent": "ZulipOutgoingWebhook/chatd",
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answered = () =>
          finish({
            kind: "response",
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
          // An answer this long is no message: stop reading, so it cannot hold the slot until the timeout.
          answered();
          response.destroy();
        });
        response.on("end", answered);
        response.on("error", () => finish({ kind: "connection-error" }));
      },
    );
    // The whole exchange, connecting to the last byte of the answer, is bounded.
    const timer = setTimeout(() => {
      finish({ kind: "timeout" });
      request.destroy();
    }, req.timeoutMs);
    request.on("error", (err) => {
      const refused =
        err instanceof RefusedWebhookTarget || (err as { code?: string }).code === "EWEBHOOKTARGET";
      finish(refused ? { kind: "refused" } : { kind: "connection-error" });
    });
    request.end(req.body);
  });
}
