import { expect } from "chai";
import { expectSuccess } from "../helpers/client.js";
import { confirmEmailChange, emailChangeLink } from "../helpers/email-change.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { browse } from "../helpers/web.js";
import { ROLE } from "../../src/world/roles.js";

describe("email change by confirmation link", function () {
  let server: TestServer;
  let realm: TestRealm;
  let serial = 0;

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER });
  });
  after(async function () {
    await server.close();
  });

  const fresh = () => server.factory.user(realm.id, `player${++serial}`);
  const deliveryEmail = async (user: TestUser) =>
    (await server.app.knex("users").where({ id: user.id }).first<{ delivery_email: string }>())
      .delivery_email;
  const ask = async (user: TestUser, email: string): Promise<void> => {
    expectSuccess(await user.client.patch("/settings", { email }));
  };

  it("mails the link to the new address only, and tells the old address once it is changed", async function () {
    const user = await fresh();
    await ask(user, "new-address@arden.test");
    const mailed = await server.app.knex("emails").where({ to_address: "new-address@arden.test" });
    expect(mailed).to.have.length(1);
    expect(mailed[0].subject).to.equal("Verify your new email address for Elsinore");
    expect(await deliveryEmail(user)).to.equal(user.email);
    expect((await confirmEmailChange(server, "new-address@arden.test")).status).to.equal(200);
    expect(await deliveryEmail(user)).to.equal("new-address@arden.test");
    const told = await server.app.knex("emails").where({ to_address: user.email });
    expect(told.map((e: { subject: string }) => e.subject)).to.deep.equal([
      "Your email address for Elsinore was changed",
    ]);
  });

  it("a used link changes nothing again", async function () {
    const user = await fresh();
    await ask(user, "once@arden.test");
    const link = await emailChangeLink(server, "once@arden.test");
    expect((await browse(server, link)).status).to.equal(200);
    const again = await browse(server, link);
    expect(again.status).to.equal(410);
    expect(await again.text()).to.contain("This confirmation link has already been used.");
    expect(await deliveryEmail(user)).to.equal("once@arden.test");
  });

  it("a newer request replaces the older link", async function () {
    const user = await fresh();
    await ask(user, "first@arden.test");
    await ask(user, "second@arden.test");
    const old = await confirmEmailChange(server, "first@arden.test");
    expect(old.status).to.equal(410);
    expect(await old.text()).to.contain("This confirmation link was replaced by a newer one.");
    expect(await deliveryEmail(user)).to.equal(user.email);
  });

  it("an address taken since is refused when the link is followed, changing nothing", async function () {
    const user = await fresh();
    await ask(user, "contested@arden.test");
    await server.factory.user(realm.id, "contested@arden.test".split("@")[0]!);
    await server.app.knex("users").where({ delivery_email: "contested@zulip.test" }).update({
      delivery_email: "contested@arden.test",
    });
    server.app.realms.invalidate(realm.id);
    const res = await confirmEmailChange(server, "contested@arden.test");
    expect(res.status).to.equal(400);
    expect(await res.text()).to.contain("Already has an account.");
    expect(await deliveryEmail(user)).to.equal(user.email);
  });

  it("email changes disabled since: a member's link is refused", async function () {
    const user = await fresh();
    await ask(user, "late@arden.test");
    expectSuccess(await realm.users.desdemona!.client.patch("/realm", { email_changes_disabled: true }));
    try {
      const res = await confirmEmailChange(server, "late@arden.test");
      expect(res.status).to.equal(400);
      expect(await res.text()).to.contain("Email address changes are disabled in this organization.");
      expect(await deliveryEmail(user)).to.equal(user.email);
    } finally {
      expectSuccess(await realm.users.desdemona!.client.patch("/realm", { email_changes_disabled: false }));
    }
  });

  it("an expired or unknown link changes nothing", async function () {
    const user = await fresh();
    await ask(user, "slow@arden.test");
    server.clock.advance(86_400_000 + 1000);
    const res = await confirmEmailChange(server, "slow@arden.test");
    expect(res.status).to.equal(410);
    expect(await res.text()).to.contain("This confirmation link has expired.");
    expect(await deliveryEmail(user)).to.equal(user.email);
    const unknown = await browse(server, `/accounts/confirm_new_email/?token=${"B".repeat(43)}`);
    expect(unknown.status).to.equal(404);
  });
});
