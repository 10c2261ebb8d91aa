import { createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig } from "../../src/config.js";
import { silentLogger } from "../../src/logger.js";
import { closeApp, createApp } from "../../src/server/create-app.js";
import {
  AllowedPrivateHosts,
  guardedLookup,
  refusedWebhookAddress,
  refusedWebhookUrl,
} from "../../src/lib/webhook-targets.js";

describe("outgoing webhook targets (the SSRF guard)", function () {
  const none = new AllowedPrivateHosts([]);

  it("allows public addresses", function () {
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:2800:220:1:248:1893:25c8:1946", "172.32.0.1"]) {
      expect(refusedWebhookAddress("example.com", address, none), address).to.equal(null);
    }
  });

  it("refuses loopback, private, link-local, multicast, unspecified and reserved addresses", function () {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "::1",
      "[::1]",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "100.64.0.1",
      "169.254.169.254",
      "fe80::1",
      "fe80::1%eth0",
      "fd12:3456::1",
      "fc00::1",
      "224.0.0.1",
      "ff02::1",
      "0.0.0.0",
      "::",
      "255.255.255.255",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
    ]) {
      expect(refusedWebhookAddress("bots.example.com", address, none), address).to.be.a("string");
    }
    expect(refusedWebhookAddress("x", "not-an-ip", none)).to.equal("not an IP address: not-an-ip");
    expect(refusedWebhookAddress("metadata", "169.254.169.254", none)).to.equal(
      "metadata resolves to a private or reserved address (169.254.169.254)",
    );
  });

  it("lets the operator trust host names, addresses and CIDR ranges", function () {
    const allowed = new AllowedPrivateHosts(["Bots.Internal.", "127.0.0.1", "10.20.0.0/16", "fd00::/8"]);
    expect(refusedWebhookAddress("bots.internal", "192.168.7.7", allowed)).to.equal(null);
    expect(refusedWebhookAddress("localhost", "127.0.0.1", allowed)).to.equal(null);
    expect(refusedWebhookAddress("localhost", "::ffff:127.0.0.1", allowed)).to.equal(null);
    expect(refusedWebhookAddress("localhost", "127.0.0.2", allowed)).to.be.a("string");
    expect(refusedWebhookAddress("hook", "10.20.3.4", allowed)).to.equal(null);
    expect(refusedWebhookAddress("hook", "10.21.3.4", allowed)).to.be.a("string");
    expect(refusedWebhookAddress("hook", "fd12::1", allowed)).to.equal(null);
    expect(refusedWebhookAddress("hook", "::1", allowed)).to.be.a("string");
  });

  it("the worker's allowlist is built once per app, from its configuration, not on every run", async function () {
    const dir = mkdtempSync(join(tmpdir(), "chatd-webhook-targets-"));
    const build = (setting: string) =>
      createApp(testConfig(dir, { webhook_allowed_private_hosts: setting }), {
        logger: silentLogger,
        migrate: false,
      });
    try {
      const app = await build("hooks.internal, 10.0.0.0/8");
      const other = await build("");
      await closeApp(app);
      await closeApp(other);
      const allowed = app.webhookAllowedHosts;
      expect(app.webhookAllowedHosts).to.equal(allowed);
      expect(allowed.hasName("hooks.internal")).to.equal(true);
      expect(refusedWebhookAddress("hook", "10.1.2.3", allowed)).to.equal(null);
      expect(other.webhookAllowedHosts).to.not.equal(allowed);
      expect(other.webhookAllowedHosts.hasName("hooks.internal")).to.equal(false);
      expect(refusedWebhookAddress("hook", "10.1.2.3", other.webhookAllowedHosts)).to.be.a("string");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads the setting as a comma-separated list, blanks ignored", function () {
    const allowed = AllowedPrivateHosts.fromSetting(" Hooks.Internal ,, 127.0.0.1,");
    expect(allowed.hasName("hooks.internal")).to.equal(true);
    expect(refusedWebhookAddress("localhost", "127.0.0.1", allowed)).to.equal(null);
    expect(AllowedPrivateHosts.fromSetting("").hasName("")).to.equal(false);
  });

  it("rejects entries that are not host names, addresses or ranges", function () {
    for (const entry of ["10.0.0.0/33", "::/129", "http://x", "a b", "-bad.example"]) {
      expect(() => new AllowedPrivateHosts([entry]), entry).to.throw(/invalid/);
    }
  });

  describe("when connecting", function () {
    let server: Server;
    let port: number;
    before(async function () {
      server = createServer((_req, res) => res.end("ok"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(function () {
      server.close();
    });
    const fetchVia = (allowed: AllowedPrivateHosts) =>
      new Promise<string>((resolve, reject) => {
        get({ host: "localhost", port, family: 4, lookup: guardedLookup(allowed) }, (res) => {
          res.resume();
          res.on("end", () => resolve(String(res.statusCode)));
        }).on("error", reject);
      });

    it("refuses a name that resolves to loopback, unless the operator trusts it", async function () {
      const error = await fetchVia(none).then(
        () => null,
        (e: unknown) => e as Error & { code: string },
      );
      expect(error?.code).to.equal("EWEBHOOKTARGET");
      expect(error?.message).to.match(/^localhost resolves to a private or reserved address/);
      expect(await fetchVia(new AllowedPrivateHosts(["localhost"]))).to.equal("200");
      expect(await fetchVia(new AllowedPrivateHosts(["127.0.0.0/8"]))).to.equal("200");
    });

    it("checks IP literals in URLs, which Node connects to without a lookup", function () {
      expect(refusedWebhookUrl(new URL("http://127.0.0.1:5000/hook"), none)).to.be.a("string");
      expect(refusedWebhookUrl(new URL("http://[::1]/hook"), none)).to.be.a("string");
      expect(refusedWebhookUrl(new URL("https://93.184.216.34/hook"), none)).to.equal(null);
      expect(refusedWebhookUrl(new URL("https://bots.example.com/hook"), none)).to.equal(null);
      expect(
        refusedWebhookUrl(new URL("http://127.0.0.1/"), new AllowedPrivateHosts(["127.0.0.1"])),
      ).to.equal(null);
    });
  });
});
