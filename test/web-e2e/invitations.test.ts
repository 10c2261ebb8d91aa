import { expect } from "chai";
import type { Browser } from "playwright-core";
import {
  launchBrowser,
  logIn,
  requireBrowser,
  screenshotOnFailure,
  type Person,
} from "../helpers/browser.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestSmtpServer } from "../helpers/smtp.js";
import { checkView, expectEventually, makeChannels } from "../helpers/web-views.js";
import type { TestRealm } from "../helpers/factories.js";
import { waitFor } from "../helpers/webhook-receiver.js";
import { ROLE } from "../../src/world/roles.js";

/**
 * An administrator invites from the settings; the invitation email reaches a real SMTP
 * server, and the invited person signs up in the browser from its link.
 */
describe("web client: invitations", function () {
  this.timeout(60_000);
  const smtp = new TestSmtpServer();
  let server: TestServer;
  let browser: Browser;
  let desdemona: Person;
  let invited: Person | undefined;
  let realm: TestRealm;

  const openInvitations = async () => {
    await desdemona.page.goto(`${server.url}/#organization/invitations`);
    await desdemona.page.getByRole("heading", { level: 2, name: "Invitations" }).waitFor();
  };
  const status = (text: string) => desdemona.page.getByRole("status").filter({ hasText: text }).first();

  before(async function () {
    requireBrowser(this);
    await smtp.start();
    server = await startTestServer(smtp.config());
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER });
    const d = realm.users.desdemona!;
    await makeChannels(d, [{ name: "Dunsinane" }, { name: "Birnam Wood" }], [d]);
    browser = await launchBrowser();
    desdemona = await logIn(browser, server, d.email, d.password);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
    await smtp.stop();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [desdemona, invited]);
    await invited?.context.close();
    expect(desdemona?.problems ?? []).to.deep.equal([]);
    expect(invited?.problems ?? []).to.deep.equal([]);
    invited = undefined;
  });

  it("invites by email to a channel; the emailed link signs the person up, into the app and that channel", async function () {
    await openInvitations();
    await checkView(desdemona.page, "Organization settings");
    const form = desdemona.page.getByRole("form", { name: "Invite by email" });
    await form.getByLabel("Email addresses").fill("ophelia@example.com");
    await form.getByRole("checkbox", { name: "Default channels for this organization" }).uncheck();
    await form.getByRole("checkbox", { name: "Dunsinane", exact: true }).check();
    await form.getByRole("button", { name: "Send invitations" }).click();
    await status("Invitations sent").waitFor();
    await desdemona.page.getByRole("cell", { name: "ophelia@example.com", exact: true }).waitFor();
    // Email is on: no notice that it is off, and no link on screen (it went by email only).
    expect(await desdemona.page.getByText("Email is off on this server").count()).to.equal(0);
    expect(await desdemona.page.getByRole("region", { name: "Sign-up links to send" }).count()).to.equal(0);

    // The email as the operator's SMTP server received it; its link, from the plain text.
    await waitFor(() => smtp.received.length === 1);
    const mail = smtp.received[0]!;
    expect(mail.to).to.deep.equal(["ophelia@example.com"]);
    const link = /http:\/\/chatd\.test(\/join\/[A-Za-z0-9_-]{43}\/)/.exec(mail.text);
    expect(link, mail.text).not.to.equal(null);
    expect(mail.html).to.include(`http://chatd.test${link![1]!}`);

    // A fresh browser, as the invited person's own.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    invited = { context, page, problems: [] };
    page.on("pageerror", (err) => invited!.problems.push(`page error: ${err.message}`));
    await page.goto(`${server.url}${link![1]!}`);
    await checkView(page, "Join Elsinore", 4);
    const email = page.getByLabel("Email");
    expect(await email.inputValue()).to.equal("ophelia@example.com");
    expect(await email.getAttribute("readonly")).to.not.equal(null);
    await page.getByLabel("Full name").fill("Ophelia Dane");
    await page.getByLabel("Password").fill("get-thee-to-a-nunnery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
    const channels = page.getByRole("navigation", { name: "Channels" });
    await channels.getByRole("link", { name: "Dunsinane", exact: true }).waitFor();
    expect(await channels.getByRole("link", { name: "Birnam Wood", exact: true }).count()).to.equal(0);

    // The used link says so, with no form.
    await page.goto(`${server.url}${link![1]!}`);
    await page
      .getByRole("status")
      .filter({ hasText: "This invitation link has already been used." })
      .waitFor();
    expect(await page.getByRole("button", { name: "Sign up" }).count()).to.equal(0);

    await openInvitations();
    await desdemona.page.getByText("No pending invitations.").waitFor();
  });

  it("creates a reusable link to hand over, and revokes pending invitations", async function () {
    await openInvitations();
    const linkForm = desdemona.page.getByRole("form", { name: "Invitation link" });
    await linkForm.getByRole("button", { name: "Create link" }).click();
    await status("Link created").waitFor();
    const link = await linkForm.getByLabel("Link to share").inputValue();
    expect(link).to.match(/^http:\/\/chatd\.test\/join\/[A-Za-z0-9_-]{43}\/$/);

    const form = desdemona.page.getByRole("form", { name: "Invite by email" });
    await form.getByLabel("Email addresses").fill("laertes@example.com");
    await form.getByRole("button", { name: "Send invitations" }).click();
    await desdemona.page.getByRole("cell", { name: "laertes@example.com", exact: true }).waitFor();
    await desdemona.page.getByRole("button", { name: "Revoke invitation for laertes@example.com" }).click();
    await status("Invitation revoked").waitFor();
    await desdemona.page
      .getByRole("cell", { name: "laertes@example.com", exact: true })
      .waitFor({ state: "detached" });
    const pending = (await server.app.knex("invitations").whereNull("revoked_at").pluck("email")) as Array<
      string | null
    >;
    expect(pending).not.to.include("laertes@example.com");
  });

  it("on a phone, every invitation's Revoke button can be scrolled to, within the screen's width", async function () {
    const d = realm.users.desdemona!;
    const phone = await logIn(browser, server, d.email, d.password, {
      viewport: { width: 390, height: 844 },
      hash: "#organization/invitations",
    });
    try {
      const page = phone.page;
      await page.getByRole("heading", { level: 2, name: "Invitations" }).waitFor();
      await page
        .getByRole("form", { name: "Invite by email" })
        .getByLabel("Email addresses")
        .fill("rosencrantz@a-rather-long-domain-name.example.com");
      await page.getByRole("button", { name: "Send invitations" }).click();
      await page.getByRole("button", { name: "Create link" }).click();
      await page.getByLabel("Link to share").waitFor();
      const revoke = page.getByRole("button", { name: /^Revoke/ });
      await expectEventually(async () => (await revoke.count()) >= 2);
      // Nothing around the buttons scrolls sideways: the table fits the screen.
      const sideways = await revoke.first().evaluate((button) => {
        const found: string[] = [];
        for (let el = button.parentElement; el; el = el.parentElement) {
          if (el.scrollWidth > el.clientWidth + 1) found.push(`${el.tagName} ${el.className}`);
        }
        return found;
      });
      expect(sideways, "elements wider than their box").to.deep.equal([]);
      for (const button of await revoke.all()) {
        await button.scrollIntoViewIfNeeded();
        const box = (await button.boundingBox())!;
        expect(box.x, "left edge").to.be.at.least(0);
        expect(box.x + box.width, "right edge").to.be.at.most(390);
        expect(box.y + box.height, "bottom edge").to.be.at.most(844);
      }
      expect(await page.evaluate("document.documentElement.scrollWidth")).to.be.at.most(390);
      expect(phone.problems).to.deep.equal([]);
    } finally {
      await phone.context.close();
    }
  });
});
