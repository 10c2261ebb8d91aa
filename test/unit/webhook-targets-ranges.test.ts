import type { LookupAddress } from "node:dns";
import { expect } from "chai";
import ipaddr from "ipaddr.js";
import {
  AllowedPrivateHosts,
  guardedLookup,
  refusedWebhookAddress,
  refusedWebhookUrl,
  type ResolveAll,
} from "../../src/lib/webhook-targets.js";

/**
 * The IANA IPv4 and IPv6 special-purpose address registries (as of 2025), written out
 * here independently of the guard, plus multicast and the deprecated IPv6 blocks that
 * are outside them (site-local, IPv4-compatible): every one is refused.
 */
const IPV4_SPECIAL = [
  "0.0.0.0/8", // "this network"
  "0.0.0.0/32", // "this host on this network"
  "10.0.0.0/8", // private
  "100.64.0.0/10", // shared address space (CGNAT)
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.0.0/29", // IPv4 service continuity prefix
  "192.0.0.8/32", // IPv4 dummy address
  "192.0.0.9/32", // Port Control Protocol anycast
  "192.0.0.10/32", // TURN anycast
  "192.0.0.170/32", // NAT64/DNS64 discovery
  "192.0.0.171/32", // NAT64/DNS64 discovery
  "192.0.2.0/24", // documentation (TEST-NET-1)
  "192.31.196.0/24", // AS112-v4
  "192.52.193.0/24", // AMT
  "192.88.99.0/24", // deprecated 6to4 relay anycast
  "192.88.99.2/32", // 6a44-relay anycast
  "192.168.0.0/16", // private
  "192.175.48.0/24", // direct delegation AS112 service
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation (TEST-NET-2)
  "203.0.113.0/24", // documentation (TEST-NET-3)
  "240.0.0.0/4", // reserved
  "255.255.255.255/32", // limited broadcast
  "224.0.0.0/4", // multicast (its own registry)
  "233.252.0.0/24", // multicast documentation (MCAST-TEST-NET)
];

const IPV6_SPECIAL = [
  "::1/128", // loopback
  "::/128", // unspecified
  "::ffff:0:0/96", // IPv4-mapped
  "64:ff9b::/96", // IPv4-IPv6 translation (NAT64 well-known prefix)
  "64:ff9b:1::/48", // local-use IPv4-IPv6 translation
  "100::/64", // discard-only
  "100:0:0:1::/64", // dummy IPv6 prefix
  "2001::/23", // IETF protocol assignments
  "2001::/32", // Teredo
  "2001:1::1/128", // Port Control Protocol anycast
  "2001:1::2/128", // TURN anycast
  "2001:1::3/128", // DNS-SD service registration protocol anycast
  "2001:2::/48", // benchmarking
  "2001:3::/32", // AMT
  "2001:4:112::/48", // AS112-v6
  "2001:10::/28", // deprecated ORCHID
  "2001:20::/28", // ORCHIDv2
  "2001:30::/28", // drone remote ID protocol entity tags
  "2001:db8::/32", // documentation
  "2002::/16", // 6to4
  "2620:4f:8000::/48", // direct delegation AS112 service
  "3fff::/20", // documentation
  "5f00::/16", // segment routing (SRv6) SIDs
  "fc00::/7", // unique-local
  "fe80::/10", // link-local
  "fec0::/10", // site-local (deprecated, RFC 3879)
  "::/96", // IPv4-compatible (deprecated, RFC 4291)
  "ff00::/8", // multicast
];

type Block = [ipaddr.IPv4 | ipaddr.IPv6, number];
const blocks = (cidrs: string[]): Block[] => cidrs.map((cidr) => ipaddr.parseCIDR(cidr));

const toBig = (address: ipaddr.IPv4 | ipaddr.IPv6) =>
  address.toByteArray().reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
function fromBig(n: bigint, bytes: number): ipaddr.IPv4 | ipaddr.IPv6 {
  const out: number[] = [];
  for (let i = 0; i < bytes; i++) out.unshift(Number((n >> BigInt(8 * i)) & 0xffn));
  return ipaddr.fromByteArray(out);
}

/** First and last address of a block, and the addresses just outside it (when there are). */
function edges([network, prefix]: Block) {
  const bits = network.kind() === "ipv4" ? 32 : 128;
  const first = toBig(network);
  const last = first + (1n << BigInt(bits - prefix)) - 1n;
  const outside = [first - 1n, last + 1n].filter((n) => n >= 0n && n < 1n << BigInt(bits));
  return {
    first: fromBig(first, bits / 8).toString(),
    last: fromBig(last, bits / 8).toString(),
    outside: outside.map((n) => fromBig(n, bits / 8)),
  };
}

/** What this test expects of an address just outside a block: public unless in another block. */
function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  const inAny = (list: Block[]) =>
    list.some(([network, prefix]) => address.kind() === network.kind() && address.match(network, prefix));
  if (address.kind() === "ipv4") return !inAny(blocks(IPV4_SPECIAL));
  return address.match(ipaddr.parseCIDR("2000::/3")) && !inAny(blocks(IPV6_SPECIAL));
}

describe("outgoing webhook targets: the special-purpose address registries", function () {
  const none = new AllowedPrivateHosts([]);
  const refused = (address: string) => refusedWebhookAddress("hooks.example.com", address, none) !== null;

  for (const [family, cidrs] of [
    ["IPv4", IPV4_SPECIAL],
    ["IPv6", IPV6_SPECIAL],
  ] as const) {
    for (const cidr of cidrs) {
      it(`${family} ${cidr}: its first and last address are refused, the addresses just outside it are judged on their own`, function () {
        const { first, last, outside } = edges(ipaddr.parseCIDR(cidr));
        expect(refused(first), first).to.equal(true);
        expect(refused(last), last).to.equal(true);
        for (const next of outside) {
          expect(refused(next.toString()), `${next.toString()} next to ${cidr}`).to.equal(!isPublic(next));
        }
      });
    }
  }

  it("public addresses next to the blocks are really allowed (the expectations above are not all 'refused')", function () {
    for (const address of [
      "9.255.255.255",
      "11.0.0.0",
      "100.63.255.255",
      "100.128.0.0",
      "172.15.255.255",
      "172.32.0.0",
      "192.0.1.255",
      "192.0.3.0",
      "198.17.255.255",
      "198.20.0.0",
      "223.255.255.255",
      "2001:200::",
      "2001:1fff:ffff:ffff:ffff:ffff:ffff:ffff",
      "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
      "2001:db9::",
      "2003::",
      "2620:4f:7fff:ffff:ffff:ffff:ffff:ffff",
      "2620:4f:8001::",
      "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
      "3fff:1000::",
      "2a00:1450:4001:81b::200e",
    ]) {
      expect(refused(address), address).to.equal(false);
    }
  });

  it("refuses IPv6 outside global unicast 2000::/3 that carries no IPv4 address", function () {
    for (const address of ["4000::1", "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe00::1", "200::1"]) {
      expect(refused(address), address).to.equal(true);
    }
  });

  describe("an IPv6 address carrying an IPv4 address is judged by that address", function () {
    const cases: Array<[form: string, leadsToPrivate: string[], leadsToPublic: string[]]> = [
      [
        "IPv4-mapped ::ffff:0:0/96",
        ["::ffff:169.254.169.254", "::ffff:a9fe:a9fe", "::ffff:10.0.0.1", "::ffff:192.0.2.1"],
        ["::ffff:93.184.216.34", "::ffff:5db8:d822"],
      ],
      [
        "IPv4-compatible ::/96",
        ["::169.254.169.254", "::a9fe:a9fe", "::127.0.0.1", "::10.0.0.1"],
        ["::93.184.216.34"],
      ],
      [
        "NAT64 well-known prefix 64:ff9b::/96",
        ["64:ff9b::a9fe:a9fe", "64:ff9b::169.254.169.254", "64:ff9b::7f00:1", "64:ff9b::c0a8:101"],
        ["64:ff9b::5db8:d822", "64:ff9b::8.8.8.8"],
      ],
      [
        "6to4 2002::/16",
        ["2002:a9fe:a9fe::1", "2002:a00:1::", "2002:7f00:1:ffff::1", "2002:c0a8:101:1::"],
        ["2002:5db8:d822::1", "2002:808:808:1::1"],
      ],
      [
        // 2001:0:<server>:<flags>:<port>:<client with every bit inverted>
        "Teredo 2001::/32",
        [
          "2001:0:4136:e378:8000:63bf:3f57:fefe", // client 192.168.1.1
          "2001:0:4136:e378:8000:63bf:5601:5601", // client 169.254.169.254
          "2001:0:4136:e378:8000:63bf:3fff:fdd2", // client 192.0.2.45 (RFC 4380's example)
          "2001:0:a00:1:8000:63bf:a247:27dd", // server 10.0.0.1
        ],
        ["2001:0:4136:e378:8000:63bf:a247:27dd"], // server 65.54.227.120, client 93.184.216.34
      ],
    ];
    for (const [form, leadsToPrivate, leadsToPublic] of cases) {
      it(form, function () {
        for (const address of leadsToPrivate) expect(refused(address), address).to.equal(true);
        for (const address of leadsToPublic) expect(refused(address), address).to.equal(false);
      });
    }

    it("local-use NAT64 64:ff9b:1::/48 is refused whatever it carries (where depends on the operator's prefix)", function () {
      for (const address of ["64:ff9b:1::5db8:d822", "64:ff9b:1::a9fe:a9fe", "64:ff9b:1:ffff::808:808"]) {
        expect(refused(address), address).to.equal(true);
      }
    });

    it("says which IPv4 address it leads to", function () {
      expect(refusedWebhookAddress("meta.example.com", "64:ff9b::a9fe:a9fe", none)).to.equal(
        "meta.example.com resolves to a private or reserved address (64:ff9b::a9fe:a9fe, which leads to 169.254.169.254)",
      );
      expect(refusedWebhookUrl(new URL("http://[64:ff9b::a9fe:a9fe]/latest"), none)).to.be.a("string");
      expect(refusedWebhookUrl(new URL("http://[2002:a9fe:a9fe::]/"), none)).to.be.a("string");
      expect(refusedWebhookUrl(new URL("http://[::ffff:7f00:1]/"), none)).to.be.a("string");
      expect(refusedWebhookUrl(new URL("http://[64:ff9b::5db8:d822]/"), none)).to.equal(null);
    });

    it("the operator's allowlist still opens what it names", function () {
      const allowed = new AllowedPrivateHosts(["64:ff9b::/96", "2002:a00::/24", "nat64.internal"]);
      expect(refusedWebhookAddress("x", "64:ff9b::a9fe:a9fe", allowed)).to.equal(null);
      expect(refusedWebhookAddress("x", "2002:a00:1::1", allowed)).to.equal(null);
      expect(refusedWebhookAddress("nat64.internal", "64:ff9b:1::a00:1", allowed)).to.equal(null);
      expect(refusedWebhookAddress("x", "2002:c0a8:101::1", allowed)).to.be.a("string");
    });
  });

  describe("the lookup checks every address a name resolves to", function () {
    const resolvingTo =
      (...addresses: string[]): ResolveAll =>
      (_hostname, _options, callback) =>
        callback(
          null,
          addresses.map((address): LookupAddress => ({ address, family: address.includes(":") ? 6 : 4 })),
        );
    const lookUp = (resolve: ResolveAll, all: boolean) =>
      new Promise<{ error: (Error & { code?: string }) | null; result: unknown }>((done) =>
        guardedLookup(none, resolve)("hooks.example.com", { all }, (error, result) =>
          done({ error, result }),
        ),
      );

    it("refuses a name when any of its addresses, in any IPv6 form, is private", async function () {
      for (const bad of ["64:ff9b::a9fe:a9fe", "::ffff:10.0.0.1", "2002:7f00:1::1", "fec0::1", "192.0.2.7"]) {
        const { error } = await lookUp(resolvingTo("93.184.216.34", bad), true);
        expect(error?.code, bad).to.equal("EWEBHOOKTARGET");
        expect(error?.message, bad).to.match(
          /^hooks\.example\.com resolves to a private or reserved address/,
        );
      }
    });

    it("passes a name whose addresses are all public", async function () {
      const { error, result } = await lookUp(resolvingTo("93.184.216.34", "64:ff9b::5db8:d822"), true);
      expect(error).to.equal(null);
      expect(result).to.deep.equal([
        { address: "93.184.216.34", family: 4 },
        { address: "64:ff9b::5db8:d822", family: 6 },
      ]);
      expect((await lookUp(resolvingTo("2a00:1450:4001:81b::200e"), false)).result).to.equal(
        "2a00:1450:4001:81b::200e",
      );
    });
  });
});
