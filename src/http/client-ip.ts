import { BlockList, isIPv4 } from "node:net";
import type { IncomingMessage } from "node:http";
import { parseCidrs } from "../config.js";

/** IPv4 clients of a dual-stack socket show as ::ffff:a.b.c.d. */
const plain = (address: string) =>
  address.startsWith("::ffff:") && isIPv4(address.slice(7)) ? address.slice(7) : address;

const family = (address: string) => (isIPv4(address) ? "ipv4" : "ipv6");

/**
 * The client's address for per-IP rate limits. X-Forwarded-For is believed only as far as
 * the hops that added it are trusted proxies: walking from the connection's peer leftwards,
 * the first address that is not a trusted proxy is the client.
 */
export function clientIpResolver(trustedProxies: string): (req: IncomingMessage) => string {
  const cidrs = parseCidrs(trustedProxies);
  if (cidrs.length === 0) return (req) => plain(req.socket.remoteAddress ?? "");
  const trusted = new BlockList();
  for (const cidr of cidrs) trusted.addSubnet(cidr.address, cidr.prefix, cidr.family);
  const isTrusted = (address: string) => {
    try {
      return trusted.check(address, family(address));
    } catch {
      return false; // not an address at all
    }
  };
  return (req) => {
    let client = plain(req.socket.remoteAddress ?? "");
    const forwarded = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? ""))
      .split(",")
      .map((hop) => plain(hop.trim()))
      .filter((hop) => hop !== "");
    while (isTrusted(client) && hops.length > 0) client = hops.pop()!;
    return client;
  };
}
