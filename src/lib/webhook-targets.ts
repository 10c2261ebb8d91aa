import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Where outgoing webhooks may connect (the SSRF guard): never to loopback, private,
 * link-local (169.254.169.254 included), multicast, unspecified or otherwise reserved
 * addresses, unless the operator trusts the target in `webhook_allowed_private_hosts`
 * (host names, IP addresses or CIDR ranges). Checked on the address actually connected
 * to (see the delivery's DNS lookup), so a name that resolves differently later gains
 * nothing.
 */

const [V4, V6] = ["ipv4", "ipv6"] as const;

/** Ranges no webhook reaches by default (IANA special-purpose registries). */
const FORBIDDEN: ReadonlyArray<readonly [string, number, typeof V4 | typeof V6]> = [
  ["0.0.0.0", 8, V4], // "this network", unspecified
  ["10.0.0.0", 8, V4], // RFC 1918
  ["100.64.0.0", 10, V4], // shared address space (carrier-grade NAT)
  ["127.0.0.0", 8, V4], // loopback
  ["169.254.0.0", 16, V4], // link-local, cloud metadata services
  ["172.16.0.0", 12, V4], // RFC 1918
  ["192.0.0.0", 24, V4], // IETF protocol assignments
  ["192.168.0.0", 16, V4], // RFC 1918
  ["198.18.0.0", 15, V4], // benchmarking
  ["224.0.0.0", 4, V4], // multicast
  ["240.0.0.0", 4, V4], // reserved, broadcast
  ["::", 128, V6], // unspecified
  ["::1", 128, V6], // loopback
  ["64:ff9b:1::", 48, V6], // local-use NAT64
  ["fc00::", 7, V6], // unique local
  ["fe80::", 10, V6], // link-local
  ["ff00::", 8, V6], // multicast
];

const forbidden = new BlockList();
for (const [address, prefix, type] of FORBIDDEN) forbidden.addSubnet(address, prefix, type);

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is checked as the IPv4 address it is. */
function normalize(address: string): { address: string; type: typeof V4 | typeof V6 } | null {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return { address: mapped[1]!, type: V4 };
  const family = isIP(bare);
  if (family === 4) return { address: bare, type: V4 };
  if (family === 6) return { address: bare.toLowerCase(), type: V6 };
  return null;
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
        if (!ip || prefix > (ip.type === V4 ? 32 : 128)) throw new Error(`invalid CIDR range '${raw}'`);
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
  const ip = normalize(address);
  if (!ip) return `not an IP address: ${address}`;
  if (!forbidden.check(ip.address, ip.type)) return null;
  if (allowed.hasName(hostname) || allowed.hasAddress(ip.address)) return null;
  return `${hostname} resolves to a private or reserved address (${ip.address})`;
}

/** The error a refused target fails with (a connection error no retry can fix). */
export class RefusedWebhookTarget extends Error {
  readonly code = "EWEBHOOKTARGET";
}

/**
 * A `lookup` for http(s).request: resolves the host as usual and refuses it when any of
 * its addresses is forbidden, so the connection goes only to an address checked here.
 * Node calls no lookup for an IP literal: check those with refusedWebhookUrl first.
 */
export function guardedLookup(allowed: AllowedPrivateHosts): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
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
