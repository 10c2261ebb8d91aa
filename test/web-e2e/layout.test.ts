import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import {
  launchBrowser,
  logIn,
  messages,
  requireBrowser,
  screenshotOnFailure,
  type Person,
} from "../helpers/browser.js";
import { expectSuccess } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";
import {
  checkView,
  expectEventually,
  makeChannels,
  sendDirect,
  sendToChannel,
} from "../helpers/web-views.js";
import { ROLE } from "../../src/world/roles.js";

/**
 * Records every desktop notification the page creates (window.__notifications), and lets
 * the test hide the page (window.__hidden) as another tab in front would.
 */
const RECORD_NOTIFICATIONS = `(() => {
  const Real = window.Notification;
  window.__notifications = [];
  window.__hidden = false;
  class Recorded extends Real {
    constructor(title, options) {
      window.__notifications.push({ title, body: options && options.body });
      super(title, options);
    }
  }
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
  Object.defineProperty(document, "visibilityState", { get: () => (window.__hidden ? "hidden" : "visible") });
  Object.defineProperty(document, "hidden", { get: () => window.__hidden });
})()`;

/** The page's size and state: a phone's drawers, the tab's title, desktop notifications. */
describe("web client: layout, title and notifications", function () {
  this.timeout(60_000);
  let server: TestServer;
  let browser: Browser;
  let realm: TestRealm;
  let phone: Person;
  let hamlet: Person;
  let ids: Record<string, number>;

  const notifications = (page: Page) =>
    page.evaluate<Array<{ title: string; body: string }>>("window.__notifications");
  const hide = (page: Page, hidden: boolean) =>
    page.evaluate(`window.__hidden = ${hidden}; document.dispatchEvent(new Event("visibilitychange"))`);

  before(async function () {
    requireBrowser(this);
    server = await startTestServer();
    realm = await server.factory.realm({
      desdemona: ROLE.OWNER,
      hamlet: ROLE.MEMBER,
      othello: ROLE.MEMBER,
      cordelia: ROLE.MEMBER,
    });
    const { desdemona: d, hamlet: h, othello: o, cordelia: c } = realm.users;
    ids = await makeChannels(d!, [{ name: "Denmark" }, { name: "Verona" }], [d!, h!, o!, c!]);
    expectSuccess(await c!.client.post("/mark_all_as_read"));
    browser = await launchBrowser();
    phone = await logIn(browser, server, c!.email, c!.password, { viewport: { width: 390, height: 844 } });
    hamlet = await logIn(browser, server, h!.email, h!.password);
  });

  after(async function () {
    await browser?.close();
    await server?.close();
  });

  afterEach(async function () {
    await screenshotOnFailure(this, [phone, hamlet]);
    expect(phone?.problems ?? []).to.deep.equal([]);
    expect(hamlet?.problems ?? []).to.deep.equal([]);
  });

  it("on a phone, hides the sidebars behind buttons that open and close them", async function () {
    const { page } = phone;
    const channels = page.getByRole("navigation", { name: "Channels" });
    const users = page.getByRole("complementary", { name: "Users" });
    const showChannels = page.getByRole("button", { name: "Show channels" });
    const showUsers = page.getByRole("button", { name: "Show users" });
    await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
    expect(await channels.isVisible()).to.equal(false);
    expect(await users.isVisible()).to.equal(false);
    expect(await showChannels.getAttribute("aria-expanded")).to.equal("false");

    await showChannels.click();
    await channels.waitFor();
    expect(await showChannels.getAttribute("aria-expanded")).to.equal("true");
    await showChannels.click();
    await channels.waitFor({ state: "hidden" });

    await showUsers.click();
    await users.waitFor();
    expect(await showUsers.getAttribute("aria-expanded")).to.equal("true");
    await page.keyboard.press("Escape");
    await users.waitFor({ state: "hidden" });
    expect(await showUsers.getAttribute("aria-expanded")).to.equal("false");
  });

  it("on a phone, closes the drawer when a channel is opened from it", async function () {
    const { page } = phone;
    await page.getByRole("button", { name: "Show channels" }).click();
    await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: "Denmark" }).click();
    await page.getByRole("heading", { level: 1, name: "#Denmark" }).waitFor();
    await page.getByRole("navigation", { name: "Channels" }).waitFor({ state: "hidden" });
    // The feed and the compose box fit the phone's width.
    const feed = await page.getByRole("region", { name: "Messages" }).boundingBox();
    const send = await page.getByRole("button", { name: "Send" }).boundingBox();
    expect(feed!.width).to.be.at.most(390);
    expect(send!.x + send!.width).to.be.at.most(390);
    await checkView(page, "#Denmark");
  });

  it("shows the unread count in the tab's title, and follows it as messages are read", async function () {
    const { page } = phone;
    await page.goto(`${server.url}/#inbox`);
    await page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
    await expectEventually(async () => !/^\(\d+\)/.test(await page.title()));
    expect(await page.title()).to.equal("Elsinore · chatd");
    await sendToChannel(realm.users.othello!, ids.Verona!, "news", "One");
    await sendToChannel(realm.users.othello!, ids.Verona!, "news", "Two");
    await expectEventually(async () => (await page.title()) === "(2) Elsinore · chatd");
    await page.goto(`${server.url}/#narrow/channel/${ids.Verona}-Verona/topic/news`);
    await messages(page).filter({ hasText: "Two" }).waitFor();
    await expectEventually(async () => (await page.title()) === "Elsinore · chatd");
  });

  it("offers to enable desktop notifications, and hides the offer once they are allowed", async function () {
    await hamlet.page.goto(`${server.url}/#settings/notifications`);
    const enable = hamlet.page.getByRole("button", { name: "Enable desktop notifications" });
    await enable.waitFor();
    await hamlet.context.grantPermissions(["notifications"], { origin: server.url });
    await enable.click();
    await enable.waitFor({ state: "detached" });
  });

  it("notifies of direct messages and mentions while the page is hidden, not of other messages", async function () {
    await hamlet.context.addInitScript(RECORD_NOTIFICATIONS);
    await hamlet.page.goto(`${server.url}/#inbox`);
    await hamlet.page.reload();
    await hamlet.page.getByRole("heading", { level: 1, name: "Inbox" }).waitFor();
    const o = realm.users.othello!;
    // Seen while visible: nothing to notify.
    await sendDirect(o, [realm.users.hamlet!], "While you look");
    await hamlet.page.getByRole("link", { name: "Othello Dane" }).first().waitFor();
    await hide(hamlet.page, true);
    await sendToChannel(o, ids.Denmark!, "chatter", "Nothing for you");
    await sendDirect(o, [realm.users.hamlet!], "Come at once");
    await sendToChannel(
      o,
      ids.Denmark!,
      "call",
      `@**Hamlet Dane|${realm.users.hamlet!.id}** your father's ghost`,
    );
    await expectEventually(async () => (await notifications(hamlet.page)).length >= 2);
    const shown = await notifications(hamlet.page);
    expect(shown).to.deep.equal([
      { title: "Othello Dane (Direct message)", body: "Come at once" },
      { title: "Othello Dane (#Denmark › call)", body: "@Hamlet Dane your father's ghost" },
    ]);
    await hide(hamlet.page, false);
  });
});
