import { expect } from "chai";
import { cast, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { register, verifyRegisterParity } from "../helpers/events.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("realm domains: /realm/domains", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
  });
  after(async function () {
    await server.close();
  });

  const listed = async () => expectSuccess(await u.hamlet.client.get("/realm/domains")).domains as unknown[];
  const registered = async () => (await register(u.hamlet.client)).realm_domains as unknown[];

  it("owners add, change and remove domains; everyone hears of it (register parity)", async function () {
    let events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      const body = expectSuccess(
        await u.desdemona.client.post("/realm/domains", { domain: " Example.COM ", allow_subdomains: false }),
      );
      expect(body.new_domain).to.deep.equal([(body.new_domain as [number])[0], "example.com"]);
      expectSuccess(
        await u.desdemona.client.post("/realm/domains", { domain: "acme.org", allow_subdomains: true }),
      );
    });
    expect(events.map((e): unknown[] => [e.type, e.op])).to.deep.equal([
      ["realm_domains", "add"],
      ["realm_domains", "add"],
    ]);
    expect(events[0]!.realm_domain).to.deep.equal({ domain: "example.com", allow_subdomains: false });
    const both = [
      { domain: "acme.org", allow_subdomains: true },
      { domain: "example.com", allow_subdomains: false },
    ];
    expect(await listed()).to.deep.equal(both);
    expect(await registered()).to.deep.equal(both);

    events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      expectSuccess(await u.desdemona.client.patch("/realm/domains/example.com", { allow_subdomains: true }));
    });
    expect(events).to.deep.equal([
      {
        type: "realm_domains",
        op: "change",
        realm_domain: { domain: "example.com", allow_subdomains: true },
        id: events[0]!.id,
      },
    ]);
    events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      expectSuccess(await u.desdemona.client.delete("/realm/domains/acme.org"));
    });
    expect(events).to.deep.equal([
      { type: "realm_domains", op: "remove", domain: "acme.org", id: events[0]!.id },
    ]);
    expect(await listed()).to.deep.equal([{ domain: "example.com", allow_subdomains: true }]);
  });

  it("removing the last domain turns the restriction off, with its realm event", async function () {
    expectSuccess(await u.desdemona.client.patch("/realm", { emails_restricted_to_domains: true }));
    const events = await verifyRegisterParity(u.hamlet.client, {}, async () => {
      expectSuccess(await u.desdemona.client.delete("/realm/domains/example.com"));
    });
    expect(events.map((e): unknown[] => [e.type, e.op, e.property ?? e.domain, e.value])).to.deep.equal([
      ["realm", "update", "emails_restricted_to_domains", false],
      ["realm_domains", "remove", "example.com", undefined],
    ]);
    expect((await register(u.hamlet.client)).realm_emails_restricted_to_domains).to.equal(false);
    expect(await listed()).to.deep.equal([]);
  });

  it("refuses bad and duplicate domains and unknown ones with Zulip's messages; nothing changes", async function () {
    expectSuccess(
      await u.desdemona.client.post("/realm/domains", { domain: "kept.org", allow_subdomains: false }),
    );
    const cases: Array<[string, string]> = [
      ["", "Invalid domain: Domain can't be empty."],
      ["localhost", "Invalid domain: Domain must have at least one dot (.)"],
      [".example.com", "Invalid domain: Domain cannot start or end with a dot (.)"],
      ["a..com", "Invalid domain: Consecutive '.' are not allowed."],
      ["-a.com", "Invalid domain: Subdomains cannot start or end with a '-'."],
      ["a_b.com", "Invalid domain: Domain can only have letters, numbers, '.' and '-'s."],
      ["KEPT.org", "The domain kept.org is already a part of your organization."],
    ];
    for (const [domain, message] of cases) {
      expectError(
        await u.desdemona.client.post("/realm/domains", { domain, allow_subdomains: false }),
        400,
        message,
      );
    }
    expectError(
      await u.desdemona.client.patch("/realm/domains/nowhere.org", { allow_subdomains: true }),
      400,
      "No entry found for domain nowhere.org.",
    );
    expectError(
      await u.desdemona.client.delete("/realm/domains/nowhere.org"),
      400,
      "No entry found for domain nowhere.org.",
    );
    expectError(
      await u.desdemona.client.post("/realm/domains", { domain: "x.org", allow_subdomains: "maybe" }),
      400,
      "allow_subdomains is not a boolean",
    );
    expect(await listed()).to.deep.equal([{ domain: "kept.org", allow_subdomains: false }]);
  });

  it("refuses everyone but owners (administrators too); nothing changes", async function () {
    const before = await listed();
    for (const who of [u.iago, u.hamlet, u.polonius]) {
      const owner = "Must be an organization owner";
      expectError(
        await who.client.post("/realm/domains", { domain: "other.org", allow_subdomains: false }),
        400,
        owner,
        "UNAUTHORIZED_PRINCIPAL",
      );
      expectError(
        await who.client.patch("/realm/domains/kept.org", { allow_subdomains: true }),
        400,
        owner,
        "UNAUTHORIZED_PRINCIPAL",
      );
      expectError(await who.client.delete("/realm/domains/kept.org"), 400, owner, "UNAUTHORIZED_PRINCIPAL");
    }
    expect(await listed()).to.deep.equal(before);
    // Reading is anyone's, guests included.
    expect(expectSuccess(await u.polonius.client.get("/realm/domains")).domains).to.deep.equal(before);
  });
});
