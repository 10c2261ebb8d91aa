import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import {
  launchBrowser,
  logIn,
  requireBrowser,
  screenshotOnFailure,
  type Person,
} from "../helpers/browser.js";
import { expectSuccess } from "../helpers/client.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestSmtpServer } from "../helpers/smtp.js";
import { checkView } from "../helpers/web-views.js";
import { waitFor } from "../helpers/webhook-receiver.js";
import { ROLE } from "../../src/world/roles.js";

/**
 * A person changes their email in the personal settings: the confirmation link reaches
 * the new address through a real SMTP server, and following it changes what the open
 * settings show.
 */
describe("web client: email change", function () {
  this.timeout(60_000);
  const smtp = new TestSmtpServer();
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let hamlet: Person;
  let desdemona: Person;

  const account = async (page: Page) => {
    await page.goto(`${server.url}/#settings/account-and-privacy`);
    await page.getByRole("heading", { level: 2, name: "Account and password" }).waitFor();
  };
  const changeForm = (page: Page) => page.getByRole("form", { name: "Change email" });

  before(async function () {
    requireBrowser(this);
    await smtp.start();
    server = await startTestServer(smtp.config());
    realm = await server.factory.realm({ desdemona: ROLE.OWNER, hamlet: ROLE.MEMBER, othello: ROLE.MEMBER });
    browser = await launchBrowser();
    hamlet = await logIn(browser, server, realm.users.hamlet!.email, realm.users.hamlet!.password);
    desdemona = await logIn(browser, server, realm.users.desdemona!.email, realm.users.desdemona!.password);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
    await smtp.stop();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [hamlet, desdemona]);
    expect(hamlet?.problems ?? []).to.deep.equal([]);
    expect(desdemona?.problems ?? []).to.deep.equal([]);
  });

  it("shows the server's refusal in the form, and sends nothing", async function () {
    await account(hamlet.page);
    await hamlet.page.getByRole("button", { name: "Change email" }).click();
    const form = changeForm(hamlet.page);
    await form.getByLabel("New email").fill(realm.users.othello!.email);
    await form.getByRole("button", { name: "Send confirmation" }).click();
    await form.getByRole("alert").filter({ hasText: "Already has an account." }).waitFor();
    expect(await form.getByLabel("New email").getAttribute("aria-invalid")).to.equal("true");
    await form.getByRole("button", { name: "Cancel" }).click();
    await changeForm(hamlet.page).waitFor({ state: "detached" });
    expect(smtp.received).to.deep.equal([]);
    expect(await server.app.knex("emails").pluck("to_address")).to.deep.equal([]);
    // The refusal the test asked for (Chromium logs the 400); nothing else went wrong.
    expect(hamlet.problems.filter((p) => !p.includes("status of 400"))).to.deep.equal([]);
    hamlet.problems.splice(0);
  });

  it("mails a confirmation link to the new address; following it changes the address the settings show", async function () {
    await account(hamlet.page);
    await hamlet.page.getByText(realm.users.hamlet!.email, { exact: true }).waitFor();
    const toggle = hamlet.page.getByRole("button", { name: "Change email" });
    expect(await toggle.getAttribute("aria-expanded")).to.equal("false");
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).to.equal("true");
    await checkView(hamlet.page, "Personal settings", 8);
    const form = changeForm(hamlet.page);
    await form.getByLabel("New email").fill("prince@denmark.test");
    await form.getByRole("button", { name: "Send confirmation" }).click();
    await hamlet.page
      .getByRole("status")
      .filter({ hasText: "Check your email (prince@denmark.test) to confirm the new address." })
      .waitFor();
    await form.waitFor({ state: "detached" });
    // Nothing changes until the link is followed.
    await hamlet.page.getByText(realm.users.hamlet!.email, { exact: true }).waitFor();

    await waitFor(() => smtp.received.length === 1);
    const mail = smtp.received[0]!;
    expect(mail.to).to.deep.equal(["prince@denmark.test"]);
    const link = /http:\/\/chatd\.test(\/accounts\/confirm_new_email\/\?token=[\w-]{43})/.exec(mail.text);
    expect(link, mail.text).not.to.equal(null);

    // Followed in another tab of the same browser; the open settings follow the event.
    const tab = await hamlet.context.newPage();
    try {
      await tab.goto(`${server.url}${link![1]!}`);
      await tab
        .getByRole("status")
        .filter({ hasText: "Your email address is now prince@denmark.test." })
        .waitFor();
    } finally {
      await tab.close();
    }
    // The notice goes when the change arrives; the new address is shown instead of the old.
    await hamlet.page
      .getByRole("status")
      .filter({ hasText: "Check your email" })
      .waitFor({ state: "detached" });
    await hamlet.page.getByText("prince@denmark.test", { exact: true }).waitFor();
    expect(await hamlet.page.getByText(realm.users.hamlet!.email, { exact: true }).count()).to.equal(0);
  });

  it("shows the email read-only, with the reason, where the organization disables changes (not to administrators)", async function () {
    await account(hamlet.page);
    await account(desdemona.page);
    await hamlet.page.getByRole("button", { name: "Change email" }).waitFor();
    expectSuccess(await realm.users.desdemona!.client.patch("/realm", { email_changes_disabled: "true" }));
    // The realm event reaches the open page.
    await hamlet.page.getByText("Email address changes are disabled in this organization.").waitFor();
    expect(await hamlet.page.getByRole("button", { name: "Change email" }).count()).to.equal(0);
    await desdemona.page.getByRole("button", { name: "Change email" }).click();
    await changeForm(desdemona.page).getByLabel("New email").waitFor();
    expect(
      await desdemona.page.getByText("Email address changes are disabled in this organization.").count(),
    ).to.equal(0);
  });
});
