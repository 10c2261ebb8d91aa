import { client } from "../app.js";
import type { Message } from "../api/types.js";
import { channelSlug, dmSlug, encodeHashComponent, narrowHash } from "../model/hash.js";

/** A channel message's channel name: the client's (renamed since?), else the message's own. */
export function channelOf(message: Message): string {
  const known = client.world.channelName(message.stream_id!);
  return known ?? (typeof message.display_recipient === "string" ? message.display_recipient : "unknown");
}

/** A message's permalink, as Zulip writes it: its conversation, then `near/ID`. */
export function messageLink(message: Message): string {
  if (message.type === "stream") {
    const name = channelOf(message);
    return `#narrow/channel/${channelSlug(message.stream_id!, name)}/topic/${encodeHashComponent(message.subject)}/near/${message.id}`;
  }
  const others = (message.display_recipient as Array<{ id: number }>)
    .map((r) => r.id)
    .filter((id) => id !== client.myUserId);
  const ids = others.length === 0 ? [client.myUserId] : others;
  const slug = dmSlug(ids, ids.length === 1 ? client.world.fullName(ids[0]!) : undefined);
  return narrowHash([
    { operator: "dm", operand: slug },
    { operator: "near", operand: String(message.id) },
  ]);
}

/**
 * A URL of this server's own files as a path: register names them under the server's
 * public URL, and the page may be open under another name for the same server (its
 * address on the local network), where the public name may not resolve.
 */
export function ownFilePath(url: string): string {
  const parsed = new URL(url, location.href);
  return /^\/(static|user_avatars|user_uploads)\//.test(parsed.pathname)
    ? parsed.pathname + parsed.search
    : url;
}
