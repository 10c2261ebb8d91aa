import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Where outgoing webhooks may connect (the SSRF guard): only to ordinary public unicast
 * addresses, never to any block of the IANA IPv4 and IPv6 special-purpose registries
 * (loopback, private, link-local, shared, documentation, benchmarking, reserved...),
 * multicast, or IPv6 outside global unicast 2000::/3, unless the operator trusts the
 * target in `webhook_allowed_private_hosts` (host names, IP addresses or CIDR ranges).
 * An IPv6 address that carries an IPv4 address (mapped, compatible, NAT64, 6to4,
 * Teredo) is judged by the IPv4 address it leads to. Checked on the address actually
 * connected to (see the delivery's DNS lookup), so a name that resolves differently
 * later gains nothing.
 */

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const cidr6 = (text: string): [IPv6, number] => ipaddr.IPv6.parseCIDR(text);

/** IANA's global unicast space (RFC 4291); the rest of IPv6, bar what carries IPv4, is reserved. */
const GLOBAL_UNICAST = cidr6("2000::/3");
/** Documentation (RFC 9637), which ipaddr.js 2.2 does not name (later versions do). */
const DOCUMENTATION = cidr6("3fff::/20");

/** Where IPv6 addresses carry an IPv4 address, and which 16-bit parts hold it. */
const EMBEDDINGS: ReadonlyArray<{
  block: [IPv6, number];
  at: ReadonlyArray<[number, number]>;
  inverted?: true;
}> = [
  { block: cidr6("::ffff:0:0/96"), at: [[6, 7]] }, // IPv4-mapped: a dual-stack socket connects over IPv4
  { block: cidr6("::/96"), at: [[6, 7]] }, // IPv4-compatible (deprecated), tunnelled where still supported
  { block: cidr6("64:ff9b::/96"), at: [[6, 7]] }, // the well-known NAT64 prefix (RFC 6052)
  { block: cidr6("2002::/16"), at: [[1, 2]] }, // 6to4: 2002:AABB:CCDD::/48 is routed to AA.BB.CC.DD
  // Teredo: 2001:0:<server>:<flags>:<port>:<client, every bit inverted>
  { block: cidr6("2001::/32"), at: [[2, 3]] },
  { block: cidr6("2001::/32"), at: [[6, 7]], inverted: true },
];

/**
 * An IP address, brackets and a zone index (fe80::1%eth0) dropped; null when it is not
 * one. Only the standard notations count (not "127.1" or "0x7f.1", which ipaddr.js
 * would also read): URL hosts and DNS answers are always standard.
 */
function parseAddress(text: string): IPv4 | IPv6 | null {
  const bare = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  return isIP(bare) === 0 ? null : ipaddr.parse(bare);
}

/**
 * The IPv4 addresses an IPv6 address leads to, or null when it carries none: the
 * socket or the network in between delivers a packet to those, so they are what is
 * judged. Local-use NAT64 is not decoded: where its IPv4 address sits depends on the
 * operator's prefix length, so any fixed reading could be steered; it is refused whole
 * (IANA: not globally reachable).
 */
function embeddedIPv4(address: IPv6): IPv4[] | null {
  // ::1 and :: are in ::/96 too, but are what they are, not IPv4 addresses.
  if (address.range() === "loopback" || address.range() === "unspecified") return null;
  const found: IPv4[] = [];
  for (const { block, at, inverted } of EMBEDDINGS) {
    if (!address.match(block)) continue;
    for (const [high, low] of at) {
      const mask = inverted ? 0xffff : 0;
      const [h, l] = [address.parts[high]! ^ mask, address.parts[low]! ^ mask];
      found.push(new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]));
    }
  }
  return found.length > 0 ? found : null;
}

/** Is this IPv4 address an ordinary public one (in no special-purpose block, not multicast)? */
const isPublicIPv4 = (address: IPv4): boolean => address.range() === "unicast";

/** Is this IPv6 address (one that carries no IPv4 address) an ordinary public one? */
const isPublicIPv6 = (address: IPv6): boolean =>
  address.range() === "unicast" && address.match(GLOBAL_UNICAST) && !address.match(DOCUMENTATION);

/** Why `address` is not public (null: it is): the address, and what it leads to if it carries IPv4. */
function nonPublic(address: IPv4 | IPv6): string | null {
  if (address.kind() === "ipv4") return isPublicIPv4(address as IPv4) ? null : address.toString();
  const embedded = embeddedIPv4(address as IPv6);
  if (embedded === null) return isPublicIPv6(address as IPv6) ? null : address.toString();
  const inner = embedded.find((ipv4) => !isPublicIPv4(ipv4));
  return inner ? `${address.toString()}, which leads to ${inner.toString()}` : null;
}

/** How the allowlist stores an address: IPv4-mapped ones as the IPv4 address they are. */
function normalize(text: string): { address: string; type: "ipv4" | "ipv6" } | null {
  const parsed = parseAddress(text);
  if (parsed === null) return null;
  if (parsed.kind() === "ipv4") return { address: parsed.toString(), type: "ipv4" };
  const ipv6 = parsed as IPv6;
  if (ipv6.isIPv4MappedAddress()) return { address: ipv6.toIPv4Address().toString(), type: "ipv4" };
  return { address: ipv6.toString(), type: "ipv6" };
}

/** The operator's trusted private targets, parsed once. */
export class AllowedPrivateHosts {
  private readonly names = new Set<string>();
  private readonly addresses = new BlockList();

  /** The `webhook_allowed_private_hosts` setting: entries separated by commas. */
  static fromSetting(setting: string): AllowedPrivateHosts {
    return new AllowedPrivateHosts(setting.split(",").filter((h) => h.trim()));
  }

  /** Throws on an entry that is neither a host name, an IP address nor a CIDR range. */
  constructor(entries: readonly string[]) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
      if (cidr) {
        const ip = normalize(cidr[1]!);
        const prefix = Number(cidr[2]);
        if (!ip || prefix > (ip.type === "ipv4" ? 32 : 128)) throw new Error(`invalid CIDR range '${raw}'`);
        this.addresses.addSubnet(ip.address, prefix, ip.type);
      } else if (normalize(entry)) {
        const ip = normalize(entry)!;
        this.addresses.addAddress(ip.address, ip.type);
      } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(entry)) {
        this.names.add(entry.replace(/\.$/, ""));
      } else {
        throw new Error(`invalid host '${raw}'`);
      }
    }
  }

  /** Is this host name (as the URL names it) trusted, whatever it resolves to? */
  hasName(hostname: string): boolean {
    return this.names.has(hostname.toLowerCase().replace(/\.$/, ""));
  }

  hasAddress(address: string): boolean {
    const ip = normalize(address);
    return ip !== null && this.addresses.check(ip.address, ip.type);
  }
}

/**
 * Why a webhook may not connect to `address` (reached through the URL's `hostname`), or
 * null when it may. An address that is not an IP address at all is refused.
 */
export function refusedWebhookAddress(
  hostname: string,
  address: string,
  allowed: AllowedPrivateHosts,
): string | null {
  const parsed = parseAddress(address);
  if (!parsed) return `not an IP address: ${address}`;
  const why = nonPublic(parsed);
  if (why === null) return null;
  if (allowed.hasName(hostname) || allowed.hasAddress(address)) return null;
  return `${hostname} resolves to a private or reserved address (${why})`;
}

/** The error a refused target fails with (a connection error no retry can fix). */
export class RefusedWebhookTarget extends Error {
  readonly code = "EWEBHOOKTARGET";
}

/** Every address of a host name (dns.lookup with `all`); replaceable in tests. */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: ResolveAll = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * A `lookup` for http(s).request: resolves the host as usual and refuses it when any of
 * its addresses is forbidden, so the connection goes only to an address checked here.
 * Node calls no lookup for an IP literal: check those with refusedWebhookUrl first.
 */
export function guardedLookup(allowed: AllowedPrivateHosts, resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const refusal = addresses
        .map((a) => refusedWebhookAddress(hostname, a.address, allowed))
        .find((reason) => reason !== null);
      if (refusal || addresses.length === 0) {
        return callback(new RefusedWebhookTarget(refusal ?? `${hostname} has no address`), "", 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Why a webhook URL whose host is an IP literal may not be reached (null: it may, or it is a name). */
export function refusedWebhookUrl(url: URL, allowed: AllowedPrivateHosts): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return isIP(host) === 0 ? null : refusedWebhookAddress(host, host, allowed);
}
