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
import { ROLE } from "../../src/world/roles.js";

/** An administrator invites from the settings; the invited person signs up in the browser. */
describe("web client: invitations", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let desdemona: Person;

  const openInvitations = async () => {
    await desdemona.page.goto(`${server.url}/#organization/invitations`);
    await desdemona.page.getByRole("heading", { level: 2, name: "Invitations" }).waitFor();
  };
  const status = (text: string) => desdemona.page.getByRole("status").filter({ hasText: text }).first();

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    const realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER });
    browser = await launchBrowser();
    const d = realm.users.desdemona!;
    desdemona = await logIn(browser, server, d.email, d.password);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [desdemona]);
    expect(desdemona?.problems ?? []).to.deep.equal([]);
  });

  it("invites by email; the invited person signs up from the emailed link and lands in the app", async function () {
    await openInvitations();
    const form = desdemona.page.getByRole("form", { name: "Invite by email" });
    await form.getByLabel("Email addresses").fill("ophelia@example.com");
    await form.getByRole("button", { name: "Send invitations" }).click();
    await status("Invitations sent").waitFor();
    await desdemona.page.getByRole("cell", { name: "ophelia@example.com", exact: true }).waitFor();

    const [body] = await server.app
      .knex("emails")
      .where({ to_address: "ophelia@example.com" })
      .pluck<string[]>("text_body");
    const mail = { text_body: body ?? "" };
    const path = /\/join\/[A-Za-z0-9_-]{43}\//.exec(mail.text_body)![0];
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}${path}`);
      const email = page.getByLabel("Email");
      expect(await email.inputValue()).to.equal("ophelia@example.com");
      expect(await email.getAttribute("readonly")).to.not.equal(null);
      await page.getByLabel("Full name").fill("Ophelia Dane");
      await page.getByLabel("Password").fill("get-thee-to-a-nunnery");
      await page.getByRole("button", { name: "Sign up" }).click();
      await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
    } finally {
      await context.close();
    }
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
});
