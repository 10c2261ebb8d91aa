import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, requireBrowser, screenshotOnFailure, type Person } from "../helpers/browser.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { TestSmtpServer } from "../helpers/smtp.js";
import { checkView } from "../helpers/web-views.js";
import { waitFor } from "../helpers/webhook-receiver.js";
import { ROLE } from "../../src/world/roles.js";

/** A forgotten password, reset in the browser through the emailed link. */
describe("web client: forgot your password", function () {
  this.timeout(60_000);
  const smtp = new TestSmtpServer();
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let person: Person | undefined;

  before(async function () {
    requireBrowser(this);
    await smtp.start();
    server = await startTestServer(smtp.config());
    realm = await server.factory.realm({ hamlet: ROLE.MEMBER });
    browser = await launchBrowser();
  });
  after(async function () {
    await browser?.close();
    await server?.close();
    await smtp.stop();
  });
  afterEach(async function () {
    await screenshotOnFailure(this, [person]);
    await person?.context.close();
  });

  it("from the login page's link to the emailed link, a new password, and into the app", async function () {
    const hamlet = realm.users.hamlet!;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page: Page = await context.newPage();
    person = { context, page, problems: [] };
    page.on("pageerror", (err) => person!.problems.push(`page error: ${err.message}`));

    await page.goto(`${server.url}/`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await checkView(page, "Reset your password", 4);
    await page.getByLabel("Email").fill(hamlet.email);
    await page.getByRole("button", { name: "Reset password" }).click();
    await page.getByRole("status").filter({ hasText: "If an account exists for that address" }).waitFor();

    await waitFor(() => smtp.received.length === 1);
    const link = /http:\/\/chatd\.test(\/accounts\/password\/reset\/confirm\/\?token=[\w-]+)/.exec(
      smtp.received[0]!.text,
    );
    expect(link, smtp.received[0]!.text).not.to.equal(null);
    await page.goto(`${server.url}${link![1]!}`);
    await checkView(page, "Set a new password", 2);
    await page.getByLabel("New password").fill("to be or not to be");
    await page.getByRole("button", { name: "Set password" }).click();

    // Back on the login page, told what happened; the new password logs in.
    await page.getByRole("status").filter({ hasText: "Your password has been reset." }).waitFor();
    // The old password no longer logs in; the new one does.
    await page.getByLabel("Email").fill(hamlet.email);
    await page.getByLabel("Password").fill(hamlet.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("alert").waitFor();
    await page.getByLabel("Email").fill(hamlet.email);
    await page.getByLabel("Password").fill("to be or not to be");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("searchbox", { name: "Search" }).waitFor();

    // The link worked once: followed again, it says so and offers no form.
    await page.goto(`${server.url}${link![1]!}`);
    await page
      .getByRole("alert")
      .filter({ hasText: "This password reset link has already been used." })
      .waitFor();
    expect(await page.getByLabel("New password").count()).to.equal(0);
    expect(person.problems).to.deep.equal([]);
  });
});
